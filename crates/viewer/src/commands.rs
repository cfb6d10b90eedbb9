//! One channel from the widgets to the app. A widget that asks for what only the app can do
//! (open a window another part owns, say why not in the status line) sends a [`Command`]
//! through the context it draws in; the app takes them once a frame, after the widgets drew,
//! and carries each out or says why it cannot. A widget needs no field for it and no link to
//! the app: drawn alone (in a test), its commands wait unread.

/// What a widget asks the app for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// A double-click on the timeline: the breakdown of the innermost scope open on
    /// `thread` at `tick`.
    BreakdownAt { thread: usize, tick: u64 },
}

/// The commands sent and not yet taken, in order.
#[derive(Debug, Clone, Default)]
struct Queue(Vec<Command>);

fn queue_id() -> egui::Id {
    egui::Id::NULL.with("prvscope-commands")
}

/// Sends `command` to the app drawing in `ctx`.
pub fn send(ctx: &egui::Context, command: Command) {
    ctx.data_mut(|d| {
        d.get_temp_mut_or_default::<Queue>(queue_id())
            .0
            .push(command);
    });
}

/// Takes the commands sent through `ctx` since the last call, oldest first.
pub fn take(ctx: &egui::Context) -> Vec<Command> {
    ctx.data_mut(|d| std::mem::take(&mut d.get_temp_mut_or_default::<Queue>(queue_id()).0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_taken_once_in_the_order_sent() {
        let ctx = egui::Context::default();
        assert!(take(&ctx).is_empty());
        send(&ctx, Command::BreakdownAt { thread: 2, tick: 5 });
        send(&ctx, Command::BreakdownAt { thread: 0, tick: 9 });
        assert_eq!(
            take(&ctx),
            vec![
                Command::BreakdownAt { thread: 2, tick: 5 },
                Command::BreakdownAt { thread: 0, tick: 9 }
            ]
        );
        assert!(take(&ctx).is_empty());
    }
}
