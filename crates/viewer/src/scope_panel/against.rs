//! The scope table beside another run (the Compare window's B): B's figure of each scope and
//! B less A, shown only while the panel analyses the region the comparison covers.

use std::sync::Arc;

use prvscope_analysis::scopes::ScopeKey;

use super::{ScopePanel, parts};

impl ScopePanel {
    /// Compares the table with `comparison`'s run B (named `name`): its figure of each
    /// scope and the delta beside A's, when the panel analyses the region compared (`None`:
    /// no comparison).
    pub fn set_against(&mut self, against: Option<(&Arc<prvscope_compare::Comparison>, &str)>) {
        match against {
            Some((c, name)) => {
                if self
                    .against
                    .as_ref()
                    .is_some_and(|a| Arc::ptr_eq(&a.comparison, c))
                {
                    return;
                }
                let rows = c
                    .rows
                    .iter()
                    .filter(|r| r.kind == prvscope_compare::Kind::Scope)
                    .map(|r| ((r.ty.clone(), r.name.clone()), (r.b, r.delta())))
                    .collect();
                self.against = Some(parts::Against {
                    comparison: Arc::clone(c),
                    name: name.to_owned(),
                    rows,
                });
            }
            None => self.against = None,
        }
    }

    /// B's figure (ns) and the delta of the scope `key` beside A's, when the table is
    /// compared and analyses the region compared.
    pub fn compared(&self, key: ScopeKey) -> Option<(u64, i128)> {
        let against = self.against.as_ref()?;
        let a = self.an.analysis.as_ref()?;
        let region = &against.comparison.a.region;
        // The same window and the same scope types as the comparison's A (a type B was not
        // analysed for would read as 0 there).
        if (a.t0, a.t1) != (region.t0, region.t1) || self.an.types != against.comparison.a.types {
            return None;
        }
        let sc = a.scopes.iter().find(|s| s.key == key)?;
        Some(self.b_of(against, sc))
    }

    /// B's figure (ns) and the delta of `sc` (a scope of the analysis shown), the window and
    /// types being the comparison's (see [`Self::compared`]).
    pub(super) fn b_of(
        &self,
        against: &parts::Against,
        sc: &prvscope_analysis::scopes::ScopeStats,
    ) -> (u64, i128) {
        let found = against
            .rows
            .get(&(self.an.ctx.type_label(sc.key.ty), sc.name.clone()))
            .copied();
        // A scope of A that B lacks: B is 0, the delta minus A's time.
        found.unwrap_or_else(|| (0, -i128::from(sc.inclusive * self.ns_per_tick)))
    }
}
