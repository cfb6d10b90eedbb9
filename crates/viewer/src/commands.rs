//! One channel from the widgets to the app. A widget that asks for what only the app can do
//! (move the timeline, open or close a window another part owns, say why not in the status
//! line) sends a [`Command`] through the context it draws in; the app takes them once a
//! frame, after the widgets drew, and carries each out or says why it cannot. A widget needs
//! no field for it and no link to the app: drawn alone (in a test), its commands wait unread.

use prvscope_analysis::scopes::ScopeKey;
use prvscope_draw::frame::TimeWindow;

/// What a widget asks the app for.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// A double-click on the timeline: the breakdown of the innermost scope open on
    /// `thread` at `tick`.
    BreakdownAt { thread: usize, tick: u64 },
    /// Show this time range on the timeline (a burst clicked in the clustering's scatter).
    GoTo(TimeWindow),
    /// The breakdown window of a set of intervals that is no scope of the trace (a
    /// cluster's bursts): `key` names it, `label` is its title, `within` its intervals per
    /// thread.
    IntervalsBreakdown {
        key: ScopeKey,
        label: String,
        within: crate::shared::Intervals,
    },
    /// Close the breakdown windows of event type `ty` (a clustering replaced by another, or
    /// closed: its clusters' windows showed what is gone).
    CloseBreakdowns { ty: u32 },
    /// Stack the open trace at `path` under the shown one's windows, its tick `b_start` at
    /// the shown trace's `window.start` (two runs aligned at a region's start), and show
    /// `window` of the shown trace.
    ShowAligned {
        path: std::path::PathBuf,
        b_start: u64,
        window: TimeWindow,
    },
    /// The next (`forward`) or previous occurrence of `target` (named `what`) in the shown
    /// trace: zoom to it and pin it (Find's Next and Previous).
    FindStep {
        target: prvscope_draw::find::Target,
        what: String,
        forward: bool,
    },
    /// A view computed in the window properties: it replaces view `old` (none: a new view)
    /// and is shown where `old` was (or at once).
    ReplaceView {
        old: Option<u64>,
        view: prvscope_store::signal::CustomRef,
        source: crate::shared::CfgWindow,
    },
    /// The timeline's draw mode (the window properties' draw mode).
    DrawMode(prvscope_store::summary::DrawMode),
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
        send(&ctx, Command::GoTo(TimeWindow::from_bounds(3, 9)));
        send(&ctx, Command::CloseBreakdowns { ty: 7 });
        assert_eq!(
            take(&ctx),
            vec![
                Command::BreakdownAt { thread: 2, tick: 5 },
                Command::GoTo(TimeWindow { start: 3, span: 6 }),
                Command::CloseBreakdowns { ty: 7 }
            ]
        );
        assert!(take(&ctx).is_empty());
    }
}
