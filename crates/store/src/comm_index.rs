//! Communications grouped by (sender, receiver) pair, so that a window of any size is drawn
//! in bounded time: the messages of a window are counted with two binary searches per pair,
//! and drawn either one line per distinct (sender row, receiver row, send column, receive
//! column) when there are few of them, or as **bundles**: per pair, the messages sent within
//! a bucket of `g` pixel columns become one line from their mean send time to their mean
//! receive time, `g` chosen so that at most a given number of bundles are made. Nothing is
//! dropped: every message sent in the window is in exactly one bundle, and the counts say how
//! many messages each line stands for.

mod density;
pub use density::Density;

use crate::Comm;
use crate::cache::{Dec, Enc};
use crate::columns::persist::{Sink, get_array, put_array};
use crate::columns::{Buf, Mapped};

/// One (sender, receiver) pair and where its messages are in the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Pair {
    send: u32,
    recv: u32,
    /// Positions `[start, end)` in the index's arrays.
    start: usize,
    end: usize,
    /// The largest `lrecv - lsend` of the pair (0 when every receive is at or before its send).
    max_latency: u64,
}

/// The store's communications grouped by pair, each group sorted by logical send time.
#[derive(Debug, Clone, Default)]
pub struct CommIndex {
    pairs: Buf<Pair>,
    /// Index into the store's communications of each position.
    order: Buf<u32>,
    /// Logical send and receive times of each position.
    lsend: Buf<u64>,
    lrecv: Buf<u64>,
    /// Prefix sums (within the pair, from its start) of `lsend - base` and `lrecv - base`,
    /// `base` being the pair's first send: bundles' mean times in O(1).
    sum_send: Buf<f64>,
    sum_recv: Buf<f64>,
}

/// One drawn line: one message, or the messages of a pair sent in one bucket of columns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bundle {
    /// Drawn rows of the sender and receiver (as the caller's `row_of` maps them).
    pub from_row: u32,
    pub to_row: u32,
    /// Mean logical send and receive times of its messages, in ticks.
    pub send: f64,
    pub recv: f64,
    /// Messages it stands for.
    pub count: u32,
    /// Its messages: positions `[start, end)` of the index (see [`CommIndex::messages`]),
    /// `end - start == count`.
    pub start: usize,
    pub end: usize,
}

/// What a window's communications are drawn as.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bundles {
    pub bundles: Vec<Bundle>,
    /// Messages sent in the window between drawn rows (all of them are in some bundle).
    pub messages: u64,
    /// Messages sent before the window and received in it, also drawn (exact lines only).
    pub crossing: u64,
    /// Pixel columns per bucket: 1 means one line per distinct pixel pair (exact).
    pub bucket_columns: u32,
    /// True when messages sent before the window and received in it were too many to look
    /// at, and are not drawn.
    pub crossing_skipped: bool,
}

impl Bundles {
    /// True when lines stand for several messages each (the window holds more messages
    /// than can be drawn one by one).
    pub fn is_density(&self) -> bool {
        self.bucket_columns > 1
    }
}

/// What to draw.
pub struct BundleQuery<'a> {
    /// The window `[t0, t0 + span)` in ticks, drawn over `width` pixel columns.
    pub t0: u64,
    pub span: u64,
    /// The window ends at the trace's end: its last tick belongs to it (`[t0, t0 + span]`),
    /// so that messages sent at the trace's last timestamp are drawn.
    pub closed: bool,
    pub width: u32,
    /// The drawn row of a store row, `None` when it is not visible.
    pub row_of: &'a dyn Fn(u32) -> Option<u32>,
    /// At most about this many lines.
    pub max_bundles: usize,
    /// Only the messages this drawn row sends or receives.
    pub only_row: Option<u32>,
}

/// `comms` ordered by (sender, receiver), stable (send-time order within a pair).
struct ByPair {
    /// Index into `comms` of each position, and its logical send and receive times.
    order: Vec<u32>,
    lsend: Vec<u64>,
    lrecv: Vec<u64>,
    /// (sender, receiver, start, end) of each pair, in order.
    pairs: Vec<(u32, u32, usize, usize)>,
}

/// Orders `comms` by pair: a counting sort when the pairs are few enough to count in a
/// table, else a parallel stable sort.
fn by_pair(comms: &[Comm]) -> ByPair {
    let rows = comms
        .iter()
        .map(|c| c.send_row.max(c.recv_row) as usize + 1)
        .max()
        .unwrap_or(0);
    match rows.checked_mul(rows) {
        Some(table) if table <= (4 * comms.len()).max(1 << 16) => by_pair_counted(comms, rows),
        _ => by_pair_sorted(comms),
    }
}

fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// [`by_pair`] with a parallel stable sort.
fn by_pair_sorted(comms: &[Comm]) -> ByPair {
    use rayon::prelude::*;
    let mut keyed: Vec<(u32, u32, u32)> = comms
        .iter()
        .enumerate()
        .map(|(i, c)| (c.send_row, c.recv_row, index(i)))
        .collect();
    keyed.par_sort_by_key(|k| (k.0, k.1));
    let mut pairs: Vec<(u32, u32, usize, usize)> = Vec::new();
    for (k, &(s, r, _)) in keyed.iter().enumerate() {
        match pairs.last_mut() {
            Some(p) if (p.0, p.1) == (s, r) => p.3 = k + 1,
            _ => pairs.push((s, r, k, k + 1)),
        }
    }
    let at = |i: u32| comms.get(i as usize);
    ByPair {
        lsend: keyed
            .par_iter()
            .map(|k| at(k.2).map_or(0, |c| c.lsend))
            .collect(),
        lrecv: keyed
            .par_iter()
            .map(|k| at(k.2).map_or(0, |c| c.lrecv))
            .collect(),
        order: keyed.into_iter().map(|k| k.2).collect(),
        pairs,
    }
}

/// [`by_pair`] with a counting sort over a table of `rows * rows` pairs (every row of
/// `comms` is below `rows`).
fn by_pair_counted(comms: &[Comm], rows: usize) -> ByPair {
    let (n, table) = (comms.len(), rows * rows);
    let key = |c: &Comm| c.send_row as usize * rows + c.recv_row as usize;
    let mut start = vec![0usize; table + 1];
    for c in comms {
        start[key(c) + 1] += 1;
    }
    for k in 0..table {
        start[k + 1] += start[k];
    }
    let mut pairs = Vec::new();
    for k in 0..table {
        if start[k + 1] > start[k] {
            let (s, r) = (k / rows, k % rows);
            pairs.push((index(s), index(r), start[k], start[k + 1]));
        }
    }
    let (mut order, mut lsend, mut lrecv) = (vec![0u32; n], vec![0u64; n], vec![0u64; n]);
    for (i, c) in comms.iter().enumerate() {
        let slot = &mut start[key(c)];
        order[*slot] = index(i);
        lsend[*slot] = c.lsend;
        lrecv[*slot] = c.lrecv;
        *slot += 1;
    }
    ByPair {
        order,
        lsend,
        lrecv,
        pairs,
    }
}

impl CommIndex {
    /// Groups `comms` (the store's, sorted by logical send time) by pair.
    pub fn build(comms: &[Comm]) -> Self {
        let ByPair {
            order,
            lsend,
            lrecv,
            pairs: ranges,
        } = by_pair(comms);
        let n = order.len();
        let mut pairs = Vec::with_capacity(ranges.len());
        let mut sum_send = Vec::with_capacity(n);
        let mut sum_recv = Vec::with_capacity(n);
        for (send, recv, start, end) in ranges {
            let base = lsend[start];
            let mut max_latency = 0;
            let (mut acc_s, mut acc_r) = (0.0_f64, 0.0_f64);
            for (&ls, &lr) in lsend[start..end].iter().zip(&lrecv[start..end]) {
                sum_send.push(acc_s);
                sum_recv.push(acc_r);
                acc_s += (ls - base) as f64;
                acc_r += lr as f64 - base as f64;
                max_latency = max_latency.max(lr.saturating_sub(ls));
            }
            // One more prefix entry per pair would shift positions; instead the pair's
            // total is recomputed from its last element when needed (see `mean`).
            pairs.push(Pair {
                send,
                recv,
                start,
                end,
                max_latency,
            });
        }
        CommIndex {
            pairs: pairs.into(),
            order: order.into(),
            lsend: lsend.into(),
            lrecv: lrecv.into(),
            sum_send: sum_send.into(),
            sum_recv: sum_recv.into(),
        }
    }

    /// The index of `store`'s messages: the one its cache file holds, else built.
    pub fn of(store: &crate::TraceStore) -> std::sync::Arc<Self> {
        match store.prebuilt_comm_index() {
            Some(index) => std::sync::Arc::clone(index),
            None => std::sync::Arc::new(Self::build(store.comms())),
        }
    }

    pub(crate) fn persist(&self, sink: &mut impl Sink, enc: &mut Enc) -> std::io::Result<()> {
        put_array(sink, enc, self.pairs.as_slice())?;
        put_array(sink, enc, self.order.as_slice())?;
        sink.end_section();
        for times in [&self.lsend, &self.lrecv] {
            put_array(sink, enc, times.as_slice())?;
            sink.end_section();
        }
        for sums in [&self.sum_send, &self.sum_recv] {
            put_array(sink, enc, sums.as_slice())?;
            sink.end_section();
        }
        Ok(())
    }

    /// Reads an index back for a store of `comms` messages; `None` when its arrays disagree.
    pub(crate) fn restore(dec: &mut Dec<'_>, map: &Mapped, comms: usize) -> Option<Self> {
        let index = CommIndex {
            pairs: get_array(dec, map)?,
            order: get_array(dec, map)?,
            lsend: get_array(dec, map)?,
            lrecv: get_array(dec, map)?,
            sum_send: get_array(dec, map)?,
            sum_recv: get_array(dec, map)?,
        };
        let n = index.order.len();
        let sound = n == comms
            && [index.lsend.len(), index.lrecv.len()] == [n, n]
            && [index.sum_send.len(), index.sum_recv.len()] == [n, n]
            && index.order.iter().all(|&i| (i as usize) < comms)
            && index.pairs.iter().all(|p| p.start < p.end && p.end <= n);
        sound.then_some(index)
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.pairs.heap_bytes()
            + self.order.heap_bytes()
            + self.lsend.heap_bytes()
            + self.lrecv.heap_bytes()
            + self.sum_send.heap_bytes()
            + self.sum_recv.heap_bytes()
    }

    /// Messages indexed.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// True when there is no message.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The store's communication indices of positions `[start, end)`.
    pub fn messages(&self, start: usize, end: usize) -> &[u32] {
        self.order.get(start..end).unwrap_or_default()
    }

    /// Mean (send, receive) time of the positions `[a, b)` of `pair` (`a < b`).
    #[allow(clippy::many_single_char_names)] // positions and times
    fn mean(&self, pair: &Pair, a: usize, b: usize) -> (f64, f64) {
        let base = self.lsend.get(pair.start).copied().unwrap_or(0) as f64;
        let prefix = |sums: &[f64], times: &[u64], k: usize| -> f64 {
            // The sum of positions [start, k): the prefix stored at k, or (k == end) the
            // last prefix plus the last element.
            if k < pair.end {
                sums.get(k).copied().unwrap_or(0.0)
            } else {
                let last = pair.end - 1;
                sums.get(last).copied().unwrap_or(0.0)
                    + (times.get(last).copied().unwrap_or(0) as f64 - base)
            }
        };
        let n = (b - a) as f64;
        let s =
            (prefix(&self.sum_send, &self.lsend, b) - prefix(&self.sum_send, &self.lsend, a)) / n;
        let r =
            (prefix(&self.sum_recv, &self.lrecv, b) - prefix(&self.sum_recv, &self.lrecv, a)) / n;
        (base + s, base + r)
    }

    /// The first position of `pair` at or after `from` whose send time is `>= t`.
    fn lower_bound(&self, pair: &Pair, from: usize, t: u64) -> usize {
        let slice = self.lsend.get(from..pair.end).unwrap_or_default();
        from + slice.partition_point(|&s| s < t)
    }

    /// The pairs whose rows are drawn (and, with `only_row`, that row's), each with its
    /// drawn rows and the positions `[lo, hi)` of its messages sent in the window.
    fn active<'s>(
        &'s self,
        q: &'s BundleQuery<'_>,
    ) -> impl Iterator<Item = (&'s Pair, u32, u32, usize, usize)> + 's {
        let t1 =
            q.t0.saturating_add(q.span)
                .saturating_add(u64::from(q.closed));
        self.pairs.iter().filter_map(move |p| {
            let (Some(from), Some(to)) = ((q.row_of)(p.send), (q.row_of)(p.recv)) else {
                return None;
            };
            if q.only_row.is_some_and(|r| r != from && r != to) {
                return None;
            }
            let lo = self.lower_bound(p, p.start, q.t0);
            Some((p, from, to, lo, self.lower_bound(p, lo, t1)))
        })
    }

    /// The lines to draw for a window: see the module's documentation.
    #[allow(clippy::many_single_char_names)] // positions and times
    pub fn bundles(&self, q: &BundleQuery<'_>) -> Bundles {
        let width = u64::from(q.width.max(1));
        let span = q.span.max(1);
        // Visible pairs with their messages sent in the window.
        let active: Vec<(&Pair, u32, u32, usize, usize)> = self.active(q).collect();
        let messages = active.iter().map(|a| (a.4 - a.3) as u64).sum();
        let column =
            |t: f64| -> i64 { ((t - q.t0 as f64) * width as f64 / span as f64).floor() as i64 };
        let max = q.max_bundles.max(1);
        let mut out = Bundles {
            messages,
            bucket_columns: 1,
            ..Bundles::default()
        };
        if messages <= max as u64 {
            // Exact: one line per run of a pair's messages on the same pixels, messages
            // received in the window but sent before it included when they are few enough
            // to look at.
            let crossing_candidates: usize = active
                .iter()
                .map(|(p, _, _, lo, _)| {
                    lo - self.lower_bound(p, p.start, q.t0.saturating_sub(p.max_latency))
                })
                .sum();
            let with_crossing = crossing_candidates <= 4 * max;
            out.crossing_skipped = !with_crossing;
            for &(p, from, to, lo, hi) in &active {
                let first = if with_crossing {
                    self.lower_bound(p, p.start, q.t0.saturating_sub(p.max_latency))
                } else {
                    lo
                };
                // The pair's messages in send order: consecutive ones on the same pixels
                // share a line.
                let mut last_key = None;
                for k in first..hi {
                    let (s, r) = (self.lsend[k], self.lrecv[k]);
                    if k < lo {
                        if r < q.t0 {
                            continue;
                        }
                        out.crossing += 1;
                    }
                    let key = (column(s as f64), column(r as f64));
                    if last_key == Some(key)
                        && let Some(b) = out.bundles.last_mut()
                        && b.end == k
                    {
                        let n = f64::from(b.count);
                        b.send = (b.send * n + s as f64) / (n + 1.0);
                        b.recv = (b.recv * n + r as f64) / (n + 1.0);
                        b.count += 1;
                        b.end = k + 1;
                    } else {
                        out.bundles.push(Bundle {
                            from_row: from,
                            to_row: to,
                            send: s as f64,
                            recv: r as f64,
                            count: 1,
                            start: k,
                            end: k + 1,
                        });
                    }
                    last_key = Some(key);
                }
            }
            return out;
        }
        // Density: buckets of g columns per pair.
        let busy = active.iter().filter(|a| a.4 > a.3).count().max(1) as u64;
        let g = (busy * width).div_ceil(max as u64).clamp(1, width);
        out.bucket_columns = u32::try_from(g).unwrap_or(u32::MAX);
        // The first tick of column c: the smallest t with column(t) >= c.
        let edge = |c: u64| -> u64 {
            let e = u128::from(c) * u128::from(span);
            q.t0 + u64::try_from(e.div_ceil(u128::from(width))).unwrap_or(u64::MAX)
        };
        for &(p, from, to, lo, hi) in &active {
            let mut k = lo;
            while k < hi {
                let c = column(self.lsend[k] as f64).max(0) as u64;
                let bucket_end = edge((c / g + 1) * g);
                let next = self.lower_bound(p, k + 1, bucket_end).min(hi).max(k + 1);
                let (s, r) = self.mean(p, k, next);
                out.bundles.push(Bundle {
                    from_row: from,
                    to_row: to,
                    send: s,
                    recv: r,
                    count: u32::try_from(next - k).unwrap_or(u32::MAX),
                    start: k,
                    end: next,
                });
                k = next;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comm(send_row: u32, recv_row: u32, lsend: u64, lrecv: u64) -> Comm {
        Comm {
            send_row,
            recv_row,
            send_cpu: 0,
            recv_cpu: 0,
            lsend,
            psend: lsend,
            lrecv,
            precv: lrecv,
            size: 8,
            tag: 1,
        }
    }

    #[test]
    fn counting_and_sorting_order_pairs_alike() {
        // A fixed pseudo-random set of messages over 300 rows, many per pair.
        let mut seed = 7_u64;
        let mut next = move |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        let generated: Vec<Comm> = (0..50_000)
            .map(|_| {
                let t = next(1_000_000);
                comm(next(300) as u32, next(300) as u32, t, t + next(1000))
            })
            .collect();
        let comms = sorted(generated);
        let (a, b) = (by_pair_counted(&comms, 300), by_pair_sorted(&comms));
        assert_eq!(a.order, b.order);
        assert_eq!(a.lsend, b.lsend);
        assert_eq!(a.lrecv, b.lrecv);
        assert_eq!(a.pairs, b.pairs);
        assert!(a.pairs.len() > 30_000, "{}", a.pairs.len());
        // In pair order, and within a pair in send order.
        for &(s, r, start, end) in &a.pairs {
            for k in start..end {
                let msg = &comms[a.order[k] as usize];
                assert_eq!((msg.send_row, msg.recv_row), (s, r));
                assert!(k == start || a.lsend[k - 1] <= a.lsend[k]);
            }
        }
        assert!(
            a.pairs
                .windows(2)
                .all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1))
        );
    }

    fn sorted(mut v: Vec<Comm>) -> Vec<Comm> {
        v.sort_by_key(|c| c.lsend);
        v
    }

    const ALL_ROWS: &dyn Fn(u32) -> Option<u32> = &Some;

    /// The window `[t0, t0 + span)` of every row over `width` columns, at most
    /// `max_bundles` lines.
    fn open_window(t0: u64, span: u64, width: u32, max_bundles: usize) -> BundleQuery<'static> {
        BundleQuery {
            t0,
            span,
            closed: false,
            width,
            row_of: ALL_ROWS,
            max_bundles,
            only_row: None,
        }
    }

    #[test]
    fn messages_at_the_last_tick_are_drawn_when_the_window_reaches_the_end() {
        // A Dimemas trace sends its last messages at the trace's last timestamp (100).
        let comms = sorted(vec![
            comm(0, 1, 40, 60),
            comm(0, 1, 100, 100),
            comm(1, 0, 100, 100),
        ]);
        let index = CommIndex::build(&comms);
        let query = |closed| {
            index.bundles(&BundleQuery {
                closed,
                ..open_window(0, 100, 10, 100)
            })
        };
        assert_eq!(query(false).messages, 1, "[0, 100) leaves them out");
        let b = query(true);
        assert_eq!(b.messages, 3);
        assert_eq!(b.bundles.iter().map(|x| x.count).sum::<u32>(), 3);
    }

    #[test]
    fn few_messages_are_drawn_one_line_per_pixel_pair() {
        let comms = sorted(vec![
            comm(0, 1, 10, 20),
            comm(0, 1, 11, 21), // same pixels as the first at 10 columns over 100 ticks
            comm(1, 0, 50, 60),
            comm(0, 1, 95, 130), // received after the window: still drawn
            comm(2, 0, 5, 40),   // row 2 not visible
        ]);
        let index = CommIndex::build(&comms);
        let row_of = |r: u32| (r < 2).then_some(r);
        let b = index.bundles(&BundleQuery {
            row_of: &row_of,
            ..open_window(0, 100, 10, 100)
        });
        assert_eq!(b.messages, 4);
        assert_eq!(b.bucket_columns, 1);
        assert!(!b.is_density());
        assert_eq!(b.bundles.len(), 3);
        let counts: u32 = b.bundles.iter().map(|x| x.count).sum();
        assert_eq!(counts, 4);
        let pair = b.bundles.iter().find(|x| x.count == 2).unwrap();
        assert!((pair.send - 10.5).abs() < 1e-9 && (pair.recv - 20.5).abs() < 1e-9);
        let ids: Vec<u32> = index.messages(pair.start, pair.end).to_vec();
        assert_eq!(ids, [1, 2]);
    }

    #[test]
    fn messages_sent_before_the_window_and_received_in_it_are_drawn() {
        let comms = sorted(vec![
            comm(0, 1, 10, 200),
            comm(0, 1, 20, 30),
            comm(0, 1, 150, 160),
        ]);
        let index = CommIndex::build(&comms);
        let b = index.bundles(&open_window(100, 100, 100, 100));
        assert_eq!(b.messages, 1);
        assert_eq!(b.crossing, 1);
        assert_eq!(b.bundles.len(), 2);
    }

    #[test]
    fn many_messages_become_bundles_that_count_every_message() {
        // 3 pairs x 100,000 messages over 1,000,000 ticks.
        let mut v = Vec::new();
        for i in 0..100_000u64 {
            v.push(comm(0, 1, i * 10, i * 10 + 3));
            v.push(comm(1, 2, i * 10 + 1, i * 10 + 9));
            v.push(comm(2, 0, i * 10 + 2, i * 10 + 500));
        }
        let comms = sorted(v);
        let index = CommIndex::build(&comms);
        let b = index.bundles(&open_window(0, 1_000_000, 1000, 600));
        assert_eq!(b.messages, 300_000);
        assert!(b.is_density());
        assert_eq!(b.bucket_columns, 5);
        assert!(b.bundles.len() <= 600 + 3, "{}", b.bundles.len());
        let total: u64 = b.bundles.iter().map(|x| u64::from(x.count)).sum();
        assert_eq!(total, 300_000);
        // Bundles are spread over the whole window, and their mean times are inside it.
        let last = b.bundles.iter().map(|x| x.send).fold(0.0, f64::max);
        assert!(last > 990_000.0, "{last}");
        for x in &b.bundles {
            assert!(x.send >= 0.0 && x.send < 1_000_000.0);
            assert_eq!(x.end - x.start, x.count as usize);
            let ids = index.messages(x.start, x.end);
            let mean = ids
                .iter()
                .map(|&i| comms[i as usize].lsend as f64)
                .sum::<f64>()
                / ids.len() as f64;
            assert!(
                (mean - x.send).abs() < 1e-3 * 1_000_000.0 / 1000.0,
                "{mean} {}",
                x.send
            );
        }
        // A narrow window of the same trace is exact again.
        let z = index.bundles(&open_window(500_000, 1_000, 1000, 600));
        assert_eq!(z.messages, 300);
        assert!(!z.is_density());
    }
}
