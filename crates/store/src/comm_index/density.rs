//! A window's communications as a density: per drawn row and pixel column, the messages it
//! sends there (by send time) and receives there (by receive time). It is what a window too
//! dense for lines shows: bins are the pixel columns themselves, so the picture has the
//! messages' own rhythm and never a stride of its own.

use std::collections::BTreeMap;

use super::{BundleQuery, CommIndex};

/// Messages per pixel column of each drawn row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Density {
    pub width: u32,
    /// Per drawn row (in row order): messages sent or received in each pixel column.
    pub rows: Vec<(u32, Vec<u32>)>,
    /// Messages sent in the window between drawn rows.
    pub messages: u64,
    /// The largest count of a column.
    pub max: u32,
}

impl CommIndex {
    /// The messages sent in the window between drawn rows (two binary searches a pair).
    pub fn count(&self, q: &BundleQuery<'_>) -> u64 {
        self.active(q).map(|a| (a.4 - a.3) as u64).sum()
    }

    /// The density of the messages sent in the window between drawn rows.
    pub fn density(&self, q: &BundleQuery<'_>) -> Density {
        let t1 =
            q.t0.saturating_add(q.span)
                .saturating_add(u64::from(q.closed));
        let width = q.width.max(1);
        let span = q.span.max(1);
        // In 64 bits when the window's ticks times its columns fit (a trace of days at
        // nanoseconds on a wide screen still does), else in 128.
        let narrow = span
            .checked_add(1)
            .and_then(|s| s.checked_mul(u64::from(width)))
            .is_some();
        let column = |t: u64| -> Option<usize> {
            let d = t.checked_sub(q.t0)?;
            if t >= t1 {
                return None;
            }
            let c = if narrow {
                d * u64::from(width) / span
            } else {
                u64::try_from(u128::from(d) * u128::from(width) / u128::from(span))
                    .unwrap_or(u64::MAX)
            };
            // The closed window's last tick falls in its last column.
            Some(
                usize::try_from(c)
                    .unwrap_or(usize::MAX)
                    .min(width as usize - 1),
            )
        };
        let mut rows: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        let mut messages = 0u64;
        for (_, from, to, lo, hi) in self.active(q) {
            if lo == hi {
                continue;
            }
            messages += (hi - lo) as u64;
            let sent = rows.entry(from).or_insert_with(|| vec![0; width as usize]);
            for &s in &self.lsend[lo..hi] {
                if let Some(c) = column(s) {
                    sent[c] += 1;
                }
            }
            let received = rows.entry(to).or_insert_with(|| vec![0; width as usize]);
            for &r in &self.lrecv[lo..hi] {
                if let Some(c) = column(r) {
                    received[c] += 1;
                }
            }
        }
        let max = rows
            .values()
            .flat_map(|v| v.iter().copied())
            .max()
            .unwrap_or(0);
        Density {
            width,
            rows: rows.into_iter().collect(),
            messages,
            max,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Comm;

    #[test]
    fn each_message_counts_once_at_its_send_and_once_at_its_receive() {
        // Row 0 sends to row 1 at ticks 0..100 (received 5 ticks later); row 2 is hidden.
        let mut comms: Vec<Comm> = (0..100)
            .map(|t| Comm {
                send_row: 0,
                recv_row: 1,
                send_cpu: 0,
                recv_cpu: 0,
                lsend: t,
                psend: t,
                lrecv: t + 5,
                precv: t + 5,
                size: 8,
                tag: 1,
            })
            .collect();
        comms.push(Comm {
            send_row: 2,
            recv_row: 0,
            ..comms[0]
        });
        let index = CommIndex::build(&comms);
        let row_of = |r: u32| (r < 2).then_some(r);
        let q = BundleQuery {
            t0: 0,
            span: 100,
            closed: false,
            width: 10,
            row_of: &row_of,
            max_bundles: 1,
            only_row: None,
        };
        let d = index.density(&q);
        assert_eq!(d.messages, 100);
        assert_eq!(d.rows.len(), 2);
        // Sends: 10 per column of 10 ticks.
        assert_eq!(d.rows[0], (0, vec![10; 10]));
        // Receives at 5..105: 5 in the first column, 10 in the others but the last 5 are
        // past the window.
        assert_eq!(d.rows[1], (1, vec![5, 10, 10, 10, 10, 10, 10, 10, 10, 10]));
        assert_eq!(d.max, 10);
    }
}
