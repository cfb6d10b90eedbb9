//! What the widgets and windows ask the app for ([`crate::commands`]), carried out.

use super::App;

impl App {
    /// Carries out what a widget asked for ([`crate::commands`]), or says why it cannot.
    pub(crate) fn carry_out(&mut self, command: crate::commands::Command) {
        use crate::commands::Command;
        if let Command::ShowAligned {
            path,
            b_start,
            window,
        } = &command
        {
            match self
                .others
                .iter()
                .position(|o| super::traces::same_file(&o.trace.path, path))
            {
                Some(k) => {
                    // The shown trace's window first: B's starts where it shows its region.
                    // Both rulers count from their region's start.
                    if let Some(l) = &mut self.loaded {
                        l.timeline.zoom_to(*window);
                        l.timeline.set_origin(Some(window.start));
                    }
                    self.new_timeline_aligned(k, window.start, *b_start);
                    if let Some(l) = &mut self.loaded {
                        let i = l.pane_count() - 1;
                        l.set_pane_origin(i, Some(*b_start));
                    }
                }
                None => self.status = format!("{} is no longer open", path.display()),
            }
            return;
        }
        if let Command::FindStep {
            target,
            what,
            forward,
        } = &command
        {
            self.find_step(*target, what, *forward);
            return;
        }
        if let Command::ReplaceView { old, view, source } = &command {
            self.replace_view(*old, view.clone(), source.clone());
            return;
        }
        let Some(l) = &mut self.loaded else {
            return;
        };
        match command {
            Command::DrawMode(mode) => {
                let mut config = l.timeline.config.clone();
                config.mode = mode;
                l.timeline.apply_config(&l.trace, config);
            }
            Command::BreakdownAt { thread, tick } => {
                if l.scopes.open_breakdown_at(thread, tick).is_none() {
                    self.status = format!(
                        "no scope open on {} there (scope types: {})",
                        l.trace.thread_name(thread),
                        if l.scopes.types().is_empty() {
                            "none; name some in the scope panel".to_owned()
                        } else {
                            prvscope_analysis::panel::types_text(
                                l.scopes.types(),
                                l.trace.pcf.as_ref(),
                            )
                        }
                    );
                }
            }
            Command::GoTo(w) => l.timeline.zoom_to(w),
            Command::IntervalsBreakdown { key, label, within } => {
                l.scopes
                    .open_intervals_breakdown(&self.ctx, key, label, within);
            }
            Command::CloseBreakdowns { ty } => l.scopes.breakdowns_mut().close_type(ty),
            Command::ShowAligned { .. }
            | Command::FindStep { .. }
            | Command::ReplaceView { .. } => {}
        }
    }

    /// Puts `view` (the window `source`) in place of view `old` among the cfg views, or
    /// beside them; shows it where the timeline showed `old`, or at once for a new one.
    fn replace_view(
        &mut self,
        old: Option<u64>,
        view: prvscope_store::signal::CustomRef,
        source: crate::properties::Source,
    ) {
        let Some(l) = &mut self.loaded else {
            return;
        };
        let shown = match &l.timeline.config.spec {
            prvscope_store::signal::SignalSpec::Custom(c) => Some(c.0.id),
            _ => None,
        };
        let at = old.and_then(|o| l.cfg_views.iter().position(|v| v.0.id == o));
        if let Some(o) = old {
            l.cfg_sources.remove(&o);
        }
        l.cfg_sources.insert(view.0.id, source);
        match at {
            Some(i) => l.cfg_views[i] = view.clone(),
            None => l.cfg_views.push(view.clone()),
        }
        if old.is_none() || shown == old {
            self.status = format!("shown: {}", view.0.name);
            self.set_view(prvscope_store::signal::SignalSpec::Custom(view));
        }
    }
}
