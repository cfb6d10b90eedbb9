//! A cache file written a part at a time, for a trace whose store does not fit in memory: the
//! loader parses the trace in batches and [`Converter::put`]s each batch's threads and
//! messages into the file, then joins every thread's parts (read back from the file, in place)
//! and puts the joined threads, a few at a time; [`Converter::finish`] merges the messages'
//! sorted runs and writes the store, whose arrays are all in the file already and are
//! referenced where they are, not copied. Memory holds one batch, or a few joined threads, at
//! a time; the rest is pages of the file, which the kernel can drop and read again.

use std::collections::BinaryHeap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Dec, Enc, Writer, persist_thread, restore_thread, temporary, write_body};
use crate::columns::Buf;
use crate::columns::persist::Sink;
use crate::{Comm, NullPolicy, ThreadData, TraceStore};

/// A cache file being converted; see the module documentation. Dropped before
/// [`Converter::finish`], it removes what it wrote.
pub struct Converter {
    w: Option<Writer>,
    tmp: PathBuf,
    path: PathBuf,
    /// The parts put since the last [`Converter::read_back`].
    parts: Vec<Part>,
    /// The messages of each part, sorted by logical send time, read in place.
    runs: Vec<Buf<Comm>>,
    /// Where the messages' runs of the parts not read back yet are.
    pending_runs: Vec<(u64, usize)>,
}

/// A part put: how many threads, their description, and where its messages are.
type Part = (usize, Enc, Option<(u64, usize)>);

fn broken(why: &str) -> io::Error {
    io::Error::other(format!(
        "the converted cache reads back inconsistent: {why}"
    ))
}

impl Converter {
    /// Starts the cache file that will be `path` (written under a temporary name beside it).
    pub fn create(path: &Path) -> io::Result<Self> {
        let tmp = temporary(path);
        Ok(Converter {
            w: Some(Writer::create(&tmp)?),
            tmp,
            path: path.to_path_buf(),
            parts: Vec::new(),
            runs: Vec::new(),
            pending_runs: Vec::new(),
        })
    }

    fn writer(&mut self) -> io::Result<&mut Writer> {
        self.w
            .as_mut()
            .ok_or_else(|| io::Error::other("the cache file was already finished"))
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.w.as_ref().map_or(0, |w| w.pos)
    }

    /// Writes `threads` (their arrays that are not in this file yet) and `comms` (sorted by
    /// logical send time; a run of the messages [`Converter::finish`] merges). The caller
    /// may drop them then: [`Converter::read_back`] gives them back, reading the file.
    pub fn put(&mut self, threads: &[ThreadData], comms: &[Comm]) -> io::Result<()> {
        let w = self.writer()?;
        let mut meta = Enc::default();
        for t in threads {
            persist_thread(t, w, &mut meta)?;
        }
        let run = if comms.is_empty() {
            None
        } else {
            let at = w.array(bytemuck::cast_slice(comms))?;
            w.close_section();
            Some((at, comms.len()))
        };
        self.parts.push((threads.len(), meta, run));
        Ok(())
    }

    /// The threads of every part put since the last call, in order, reading the file in
    /// place.
    pub fn read_back(&mut self) -> io::Result<Vec<Vec<ThreadData>>> {
        let map = self.writer()?.map_written()?;
        let mut out = Vec::with_capacity(self.parts.len());
        for (n, meta, run) in std::mem::take(&mut self.parts) {
            let mut d = Dec(&meta.0);
            let threads = (0..n)
                .map(|_| restore_thread(&mut d, &map))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| broken("a thread"))?;
            out.push(threads);
            if let Some(run) = run {
                self.pending_runs.push(run);
            }
        }
        for (at, len) in std::mem::take(&mut self.pending_runs) {
            let run = usize::try_from(at)
                .ok()
                .and_then(|at| Buf::mapped(&map, at, len))
                .ok_or_else(|| broken("the messages"))?;
            self.runs.push(run);
        }
        Ok(out)
    }

    /// Merges the messages' runs (equal send times keep the runs' order, which is the file's)
    /// into one array of the file, and writes the store of `threads` (read back from this
    /// file) with `extra`; then renames the file into place. Returns its size.
    pub fn finish(
        mut self,
        threads: Vec<ThreadData>,
        policy: NullPolicy,
        null_values: u64,
        end_time: u64,
        inversions: Vec<(u32, u32)>,
        extra: &[u8],
    ) -> io::Result<u64> {
        if !self.parts.is_empty() {
            return Err(io::Error::other("parts put but not read back"));
        }
        let runs = std::mem::take(&mut self.runs);
        let w = self.writer()?;
        let total: usize = runs.iter().map(|r| r.len()).sum();
        let at = w.align()?;
        merge_runs(&runs, |comms| w.write(bytemuck::cast_slice(comms)))?;
        w.close_section();
        drop(runs);
        let map = w.map_written()?;
        let comms: Buf<Comm> = usize::try_from(at)
            .ok()
            .and_then(|at| Buf::mapped(&map, at, total))
            .ok_or_else(|| broken("the merged messages"))?;
        let store = Arc::new(
            TraceStore::new(threads, comms, policy, null_values, end_time)
                .with_inversions(inversions),
        );
        let mut meta = Enc::default();
        write_body(&store, w, &mut meta, None)?;
        drop(store);
        drop(map);
        let w = self.w.take().ok_or_else(|| broken("the writer"))?;
        let n = w.finish(&meta, extra)?;
        std::fs::rename(&self.tmp, &self.path)?;
        Ok(n)
    }
}

impl Drop for Converter {
    fn drop(&mut self) {
        if self.w.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Merges runs sorted by logical send time, giving `out` the messages in order a block at a
/// time; of equal times, the earlier run's come first (a stable merge).
fn merge_runs(
    runs: &[Buf<Comm>],
    mut out: impl FnMut(&[Comm]) -> io::Result<()>,
) -> io::Result<()> {
    const BLOCK: usize = 1 << 16;
    let mut next: Vec<usize> = vec![0; runs.len()];
    let mut heap: BinaryHeap<std::cmp::Reverse<(u64, usize)>> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.first().map(|c| std::cmp::Reverse((c.lsend, i))))
        .collect();
    let mut block = Vec::with_capacity(BLOCK);
    while let Some(std::cmp::Reverse((_, i))) = heap.pop() {
        let (Some(run), Some(k)) = (runs.get(i), next.get_mut(i)) else {
            break;
        };
        // The run's messages up to the next run's first time go at once.
        let bound = heap.peek().map_or(u64::MAX, |r| r.0.0);
        let rest = run.get(*k..).unwrap_or_default();
        let take = rest
            .iter()
            .position(|c| {
                c.lsend > bound || (c.lsend == bound && heap.peek().is_some_and(|r| r.0.1 < i))
            })
            .unwrap_or(rest.len())
            .max(1);
        for chunk in rest.get(..take).unwrap_or_default().chunks(BLOCK) {
            block.extend_from_slice(chunk);
            if block.len() >= BLOCK {
                out(&block)?;
                block.clear();
            }
        }
        *k += take;
        if let Some(c) = run.get(*k) {
            heap.push(std::cmp::Reverse((c.lsend, i)));
        }
    }
    if !block.is_empty() {
        out(&block)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comm(lsend: u64, tag: u64) -> Comm {
        Comm {
            send_row: 0,
            recv_row: 1,
            send_cpu: 1,
            recv_cpu: 2,
            lsend,
            psend: lsend,
            lrecv: lsend + 5,
            precv: lsend + 5,
            size: 8,
            tag,
        }
    }

    #[test]
    fn runs_merge_stably_as_a_sort_of_their_concatenation() {
        let mut x = 7u64;
        let mut rand = move |m: u64| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (x >> 33) % m
        };
        for case in 0..50 {
            let runs: Vec<Vec<Comm>> = (0..=rand(6))
                .map(|r| {
                    let n = rand(if case % 5 == 0 { 200_000 } else { 40 });
                    let mut times: Vec<u64> = (0..n).map(|_| rand(30)).collect();
                    times.sort_unstable();
                    times
                        .iter()
                        .enumerate()
                        .map(|(i, &t)| comm(t, r * 1_000_000 + i as u64))
                        .collect()
                })
                .collect();
            let mut expected: Vec<Comm> = runs.concat();
            expected.sort_by_key(|c| c.lsend);
            let bufs: Vec<Buf<Comm>> = runs.into_iter().map(Buf::from).collect();
            let mut got = Vec::new();
            merge_runs(&bufs, |b| {
                got.extend_from_slice(b);
                Ok(())
            })
            .unwrap();
            assert_eq!(got, expected, "case {case}");
        }
    }

    #[test]
    fn a_converter_dropped_before_it_finishes_leaves_nothing() {
        let path = std::env::temp_dir().join(format!("prvscope-conv-{}.prvc", std::process::id()));
        let mut c = Converter::create(&path).unwrap();
        c.put(&[ThreadData::default()], &[comm(1, 1)]).unwrap();
        std::io::Write::flush(&mut c.writer().unwrap().out).unwrap();
        assert!(c.tmp.exists());
        let tmp = c.tmp.clone();
        drop(c);
        assert!(!tmp.exists());
        assert!(!path.exists());
    }
}
