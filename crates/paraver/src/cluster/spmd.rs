//! The SPMD score of each cluster: how well the processes run the clusters in the same
//! sequence. Each compared thread's bursts give the sequence of their clusters in time order
//! (noise and missing data left out); each sequence is aligned with the first one's (a
//! longest common subsequence); a cluster's score is the share of its bursts in the other
//! sequences that the alignment matches with the same cluster in the first sequence: 1 when
//! every process runs it where the first one does, lower as the processes diverge.

use std::collections::HashMap;

use super::{Bursts, Class};

/// Alignments larger than this (cells of the table) are not computed.
const MAX_CELLS: usize = 40_000_000;

/// The score of each cluster, or why there is none.
pub(super) fn scores(
    bursts: &Bursts,
    class: &[Class],
    clusters: u32,
) -> (HashMap<Class, f64>, Option<String>) {
    if clusters == 0 {
        return (HashMap::new(), None);
    }
    if bursts.sequence_rows.len() < 2 {
        return (
            HashMap::new(),
            Some("a single thread: no sequences to compare".into()),
        );
    }
    let sequence = |row: u32| -> Vec<u32> {
        bursts
            .list
            .iter()
            .zip(class)
            .filter(|(b, _)| b.thread == row)
            .filter_map(|(_, c)| match c {
                Class::Cluster(n) => Some(*n),
                _ => None,
            })
            .collect()
    };
    let reference = sequence(bursts.sequence_rows[0]);
    let mut matched = vec![0u64; clusters as usize + 1];
    let mut seen = vec![0u64; clusters as usize + 1];
    for &row in &bursts.sequence_rows[1..] {
        let other = sequence(row);
        if reference.len().saturating_mul(other.len()) > MAX_CELLS {
            return (
                HashMap::new(),
                Some(format!(
                    "sequences of {} and {} bursts are too long to align: cluster a region",
                    reference.len(),
                    other.len()
                )),
            );
        }
        for &c in &other {
            seen[c as usize] += 1;
        }
        for c in lcs(&reference, &other) {
            matched[c as usize] += 1;
        }
    }
    let scores = (1..=clusters)
        .filter(|&c| seen[c as usize] > 0)
        .map(|c| {
            (
                Class::Cluster(c),
                matched[c as usize] as f64 / seen[c as usize] as f64,
            )
        })
        .collect();
    (scores, None)
}

/// The elements of a longest common subsequence of `a` and `b`.
fn lcs(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (n, m) = (a.len(), b.len());
    // Lengths of the suffixes' LCS, row by row; the table of moves to walk it back.
    let mut len = vec![vec![0u32; m + 1]; 2];
    let mut take = vec![0u8; n * m];
    for i in (0..n).rev() {
        let (cur, next) = if i % 2 == 0 { (0, 1) } else { (1, 0) };
        for j in (0..m).rev() {
            let (v, mv) = if a[i] == b[j] {
                (len[next][j + 1] + 1, 0)
            } else if len[next][j] >= len[cur][j + 1] {
                (len[next][j], 1)
            } else {
                (len[cur][j + 1], 2)
            };
            len[cur][j] = v;
            take[i * m + j] = mv;
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < n && j < m {
        match take[i * m + j] {
            0 => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
            1 => i += 1,
            _ => j += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::lcs;

    #[test]
    fn lcs_of_shifted_sequences() {
        assert_eq!(
            lcs(&[1, 2, 3, 1, 2, 3], &[2, 3, 1, 2, 3]),
            vec![2, 3, 1, 2, 3]
        );
        assert_eq!(lcs(&[1, 1, 1], &[2, 2]), Vec::<u32>::new());
        assert_eq!(lcs(&[1, 2, 1], &[1, 1]).len(), 2);
    }
}
