//! CPU-burst clustering, as BSC's Clustering Suite does it: every computation burst
//! ([`bursts`]) becomes a point of chosen features (duration, a counter's increase, IPC),
//! each optionally on a log scale and normalised to [0, 1] over the set, and DBSCAN
//! ([`dbscan`]) groups them. Clusters are numbered by their total duration (cluster 1 is the
//! one where the program spends the most time), as the Clustering Suite numbers them; a
//! burst that DBSCAN leaves alone is noise, one lacking a feature (no cycles for its IPC, a
//! zero on a log scale) is missing data.

pub mod bursts;
pub mod dbscan;
pub mod ovni;
pub mod radius;
mod spmd;
pub mod write;

pub use bursts::{Burst, Bursts, bursts};

use crate::pop::{CYCLES, INSTRUCTIONS};

/// What a feature measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// The burst's duration, in nanoseconds.
    Duration,
    /// A counter's increase over the burst (event type).
    Counter(u32),
    /// Instructions per cycle: `PAPI_TOT_INS` over `PAPI_TOT_CYC`.
    Ipc,
}

/// One axis of the points: a measure, on a log scale or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Feature {
    pub measure: Measure,
    pub log: bool,
}

impl Feature {
    /// Its name: `duration`, `IPC`, the counter's `.pcf` label or type; `log` in front when
    /// on a log scale.
    pub fn name(&self, pcf: Option<&prvscope_format::Pcf>) -> String {
        let base = match self.measure {
            Measure::Duration => "duration (ns)".to_owned(),
            Measure::Ipc => "IPC".to_owned(),
            Measure::Counter(ty) => pcf
                .and_then(|p| p.event_types.get(&ty))
                .map_or_else(|| ty.to_string(), |t| t.label.clone()),
        };
        if self.log {
            format!("log {base}")
        } else {
            base
        }
    }

    /// The counters this feature reads (`ipc`: the trace's instructions and cycles types).
    fn counters(&self, ipc: (u32, u32)) -> Vec<u32> {
        match self.measure {
            Measure::Duration => Vec::new(),
            Measure::Counter(ty) => vec![ty],
            Measure::Ipc => vec![ipc.0, ipc.1],
        }
    }
}

/// How to cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub features: Vec<Feature>,
    /// DBSCAN's radius, in the normalised space; `None`: chosen from the bursts
    /// ([`radius`]: the knee of their core distances, at least [`DEFAULT_EPS`]).
    pub eps: Option<f64>,
    pub min_points: usize,
    /// Refinement steps ([`radius::refine`]): the noise left at `eps` is offered to the
    /// clusters found at `2 eps`, `4 eps`..., never merging two; 0: DBSCAN alone, as the
    /// Clustering Suite runs it.
    pub refine: u32,
    /// Bursts shorter than this (ticks) are left out.
    pub min_duration: u64,
}

/// The Clustering Suite's usual radius: the least one chosen from the bursts.
pub const DEFAULT_EPS: f64 = 0.03;
/// Ester et al.'s (1996) minimum points for two-dimensional data (the Clustering Suite's
/// usual 10 leaves as noise a phase that runs fewer than 10 times: on EPOCH's 1-process run,
/// 35% of the bursts).
pub const DEFAULT_MIN_POINTS: usize = 4;
/// Refinement steps by default: up to four times the radius (0.12 for the usual one).
pub const DEFAULT_REFINE: u32 = 2;

impl Options {
    /// Instructions (log scale) and IPC when the trace has both counters, else the duration
    /// (log scale) alone, with the radius chosen from the bursts, [`DEFAULT_MIN_POINTS`],
    /// [`DEFAULT_REFINE`] steps and 1 ms of minimum duration; and the
    /// reason when the counters are missing.
    pub fn for_trace(trace: &prvscope_store::Trace) -> (Options, Option<String>) {
        let present = trace.store.event_types();
        let ns = trace.header.time_unit.ns_per_tick();
        let min_duration = 1_000_000 / ns.max(1);
        let has = |t: u32| present.contains(&t);
        let ipc = ipc_types(trace);
        let (features, note) = if has(ipc.0) && has(ipc.1) {
            (instructions_and_ipc(ipc.0), None)
        } else {
            (
                vec![Feature {
                    measure: Measure::Duration,
                    log: true,
                }],
                Some(
                    "the trace has no PAPI_TOT_INS and PAPI_TOT_CYC counters: bursts are \
                     clustered on their duration alone"
                        .to_owned(),
                ),
            )
        };
        (
            Options {
                features,
                eps: None,
                min_points: DEFAULT_MIN_POINTS,
                refine: DEFAULT_REFINE,
                min_duration,
            },
            note,
        )
    }
}

/// A burst's class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// A feature could not be computed (no cycles for its IPC, a value <= 0 on a log scale).
    Missing,
    Noise,
    /// Cluster `n`, 1-based, by total duration.
    Cluster(u32),
}

impl Class {
    /// The value of the Clustering Suite's cluster event (type [`CLUSTER_EVENT`]): 1 missing
    /// data, 5 noise, 6 cluster 1, 7 cluster 2...
    pub fn event_value(self) -> u64 {
        match self {
            Class::Missing => 1,
            Class::Noise => 5,
            Class::Cluster(n) => 5 + u64::from(n),
        }
    }

    pub fn label(self) -> String {
        match self {
            Class::Missing => "Missing data".into(),
            Class::Noise => "Noise".into(),
            Class::Cluster(n) => format!("Cluster {n}"),
        }
    }
}

/// The Clustering Suite's cluster event type.
pub const CLUSTER_EVENT: u32 = 90_000_001;

/// The labels of the cluster event's values that the Clustering Suite writes in the `.pcf`
/// (`End` closes a burst), up to cluster `clusters`.
pub fn event_labels(clusters: u32) -> Vec<(u64, String)> {
    let mut v = vec![
        (0, "End".to_owned()),
        (1, "Missing data".to_owned()),
        (2, "Duration filtered".to_owned()),
        (3, "Range filtered".to_owned()),
        (4, "Threshold filtered".to_owned()),
        (5, "Noise".to_owned()),
    ];
    for n in 1..=clusters {
        v.push((5 + u64::from(n), format!("Cluster {n}")));
    }
    v
}

/// One cluster's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterFigures {
    pub class: Class,
    pub bursts: u64,
    /// Ticks.
    pub total: u64,
    /// Share of the time of all bursts clustered (of at least the minimum duration).
    pub share: f64,
    /// Mean duration, nanoseconds.
    pub mean_ns: f64,
    /// Mean instructions per burst, when the trace has them.
    pub mean_instructions: Option<f64>,
    /// Its instructions over its cycles, when the trace has both.
    pub ipc: Option<f64>,
    /// How well the processes run this cluster in the same sequence ([`spmd`]).
    pub spmd: Option<f64>,
    /// The radius at which the cluster was found (the refinement's steps find some at
    /// larger ones); `None` for noise and missing data.
    pub found_at: Option<f64>,
    /// Of its bursts, those that joined it at a larger radius than it was found at.
    pub joined: u64,
}

/// A clustering.
#[derive(Debug, Clone)]
pub struct Clustering {
    pub bursts: Bursts,
    pub options: Options,
    /// The radius DBSCAN ran at first: the options' or the one chosen from the bursts.
    pub eps: f64,
    /// Where the radius was chosen from the bursts: the knee of their core distances (`None`
    /// when the curve has none: fewer than three points or a flat curve).
    pub knee: Option<f64>,
    /// Per burst, its features' values (before the log and normalisation; `NaN`: missing).
    pub values: Vec<Vec<f64>>,
    /// Per burst, its class.
    pub class: Vec<Class>,
    /// Noise and the clusters (by number), then missing data if any.
    pub figures: Vec<ClusterFigures>,
    /// Why the SPMD scores are not given, if they are not.
    pub spmd_note: Option<String>,
}

impl Clustering {
    /// The number of clusters (noise and missing data aside).
    pub fn clusters(&self) -> u32 {
        self.class
            .iter()
            .filter_map(|c| match c {
                Class::Cluster(n) => Some(*n),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }
}

/// The feature values of burst `b` (`NaN` where one cannot be computed).
fn values_of(
    b: &Burst,
    counters: &[u32],
    features: &[Feature],
    (ns, ipc): (f64, (u32, u32)),
) -> Vec<f64> {
    let counter = |ty: u32| {
        counters
            .iter()
            .position(|&c| c == ty)
            .map_or(f64::NAN, |k| b.counters[k])
    };
    features
        .iter()
        .map(|f| match f.measure {
            Measure::Duration => b.duration() as f64 * ns,
            Measure::Counter(ty) => counter(ty),
            Measure::Ipc => {
                let cycles = counter(ipc.1);
                if cycles > 0.0 {
                    counter(ipc.0) / cycles
                } else {
                    f64::NAN
                }
            }
        })
        .collect()
}

/// Clusters the bursts of `trace` as `options` say.
pub fn cluster(trace: &prvscope_store::Trace, options: &Options) -> Result<Clustering, String> {
    if options.features.is_empty() {
        return Err("no feature to cluster on".into());
    }
    if let Some(eps) = options.eps
        && (eps.is_nan() || eps <= 0.0)
    {
        return Err(format!("epsilon must be above 0 (got {eps})"));
    }
    let ipc = ipc_types(trace);
    let mut counters: Vec<u32> = options
        .features
        .iter()
        .flat_map(|f| f.counters(ipc))
        .collect();
    counters.extend([ipc.0, ipc.1]);
    counters.sort_unstable();
    counters.dedup();
    let bursts = bursts(trace, &counters, options.min_duration)?;
    for f in &options.features {
        if let Some(ty) = f.counters(ipc).iter().find(|t| bursts.missing.contains(t)) {
            return Err(format!(
                "the trace has no events of type {ty}, which feature {} needs",
                f.name(trace.pcf.as_ref())
            ));
        }
    }
    if bursts.list.is_empty() {
        return Err(if let Some(note) = bursts.cut_note() {
            format!("no burst lies inside the loaded part: {note}")
        } else if bursts.filtered.0 > 0 {
            format!(
                "no burst of the minimum duration or longer ({} shorter ones left out)",
                bursts.filtered.0
            )
        } else {
            no_bursts(trace)
        });
    }
    Ok(classify(bursts, options))
}

/// Why `trace` has no computation burst.
pub fn no_bursts(trace: &prvscope_store::Trace) -> String {
    if trace.store.counts().states == 0 {
        if trace.pcf.as_ref().and_then(ovni::signals).is_some() {
            "no computation burst: no thread is ever Running outside a runtime or in a task \
             body (ovni's thread state and subsystem events)"
                .into()
        } else {
            "no computation burst: the trace has neither state records nor ovni's thread \
             state events"
                .into()
        }
    } else {
        "no computation burst: no thread is ever in the Running state (Paraver's state 1)".into()
    }
}

/// The event types of the trace's instructions and cycles: Extrae's `PAPI_TOT_INS` and
/// `PAPI_TOT_CYC` (42000050, 42000059) when present, else the types whose `.pcf` labels
/// start with those names (ovni writes them under other numbers), else Extrae's.
pub fn ipc_types(trace: &prvscope_store::Trace) -> (u32, u32) {
    let present = trace.store.event_types();
    let find = |number: u32, name: &str| {
        if present.contains(&number) {
            return number;
        }
        trace
            .pcf
            .as_ref()
            .and_then(|p| {
                p.event_types
                    .iter()
                    .find(|(ty, t)| present.contains(ty) && t.label.trim().starts_with(name))
                    .map(|(&ty, _)| ty)
            })
            .unwrap_or(number)
    };
    (
        find(INSTRUCTIONS, "PAPI_TOT_INS"),
        find(CYCLES, "PAPI_TOT_CYC"),
    )
}

/// Instructions (type `instructions`, log scale) and IPC: the Clustering Suite's usual
/// features.
pub fn instructions_and_ipc(instructions: u32) -> Vec<Feature> {
    vec![
        Feature {
            measure: Measure::Counter(instructions),
            log: true,
        },
        Feature {
            measure: Measure::Ipc,
            log: false,
        },
    ]
}

/// The points DBSCAN clusters: each burst's feature values, the bursts that have them all
/// (`kept`, indices into the burst list), and their coordinates (`dims` per point) on the
/// features' scales, normalised to [0, 1] over the set.
#[derive(Debug, Clone, PartialEq)]
pub struct Points {
    pub values: Vec<Vec<f64>>,
    pub kept: Vec<usize>,
    pub dims: usize,
    pub coords: Vec<f64>,
}

/// The points of `bursts` for `features`.
pub fn points(bursts: &Bursts, features: &[Feature]) -> Points {
    let dims = features.len();
    let values: Vec<Vec<f64>> = bursts
        .list
        .iter()
        .map(|b| {
            values_of(
                b,
                &bursts.counters,
                features,
                (bursts.ns_per_tick, bursts.ipc_types),
            )
        })
        .collect();
    // On the log scale where asked; missing where a value cannot be placed.
    let scaled: Vec<Option<Vec<f64>>> = values
        .iter()
        .map(|v| {
            v.iter()
                .zip(features)
                .map(|(&x, f)| {
                    let y = if f.log { x.ln() } else { x };
                    (x.is_finite() && (!f.log || x > 0.0) && y.is_finite()).then_some(y)
                })
                .collect()
        })
        .collect();
    let kept: Vec<usize> = (0..scaled.len()).filter(|&i| scaled[i].is_some()).collect();
    let mut lo = vec![f64::INFINITY; dims];
    let mut hi = vec![f64::NEG_INFINITY; dims];
    for &i in &kept {
        for (d, &x) in scaled[i].iter().flatten().enumerate() {
            lo[d] = lo[d].min(x);
            hi[d] = hi[d].max(x);
        }
    }
    let mut coords = Vec::with_capacity(kept.len() * dims);
    for &i in &kept {
        for (d, &x) in scaled[i].iter().flatten().enumerate() {
            let span = hi[d] - lo[d];
            coords.push(if span > 0.0 { (x - lo[d]) / span } else { 0.0 });
        }
    }
    Points {
        values,
        kept,
        dims,
        coords,
    }
}

/// Clusters `bursts` (already computed: the viewer reclusters with new parameters).
pub fn classify(bursts: Bursts, options: &Options) -> Clustering {
    let Points {
        values,
        kept,
        dims,
        coords: points,
    } = points(&bursts, &options.features);
    let knee = if options.eps.is_none() {
        radius::knee(&radius::core_distances(&points, dims, options.min_points))
    } else {
        None
    };
    let eps = options
        .eps
        .unwrap_or_else(|| knee.map_or(DEFAULT_EPS, |k| k.max(DEFAULT_EPS)));
    let radius::Refined {
        labels,
        found_at,
        joined_at,
    } = radius::refine(&points, dims, eps, options.min_points, options.refine);
    // Renumber by total duration (ties: by DBSCAN's order).
    let found = labels
        .iter()
        .filter(|&&l| l != dbscan::NOISE)
        .max()
        .map_or(0, |&m| m as usize + 1);
    let mut totals = vec![0u64; found];
    for (k, &l) in labels.iter().enumerate() {
        if l != dbscan::NOISE {
            totals[l as usize] += bursts.list[kept[k]].duration();
        }
    }
    let mut order: Vec<usize> = (0..found).collect();
    order.sort_by(|&a, &b| totals[b].cmp(&totals[a]).then(a.cmp(&b)));
    let mut number = vec![0u32; found];
    let mut radii = vec![eps; found];
    for (rank, &c) in order.iter().enumerate() {
        number[c] = rank as u32 + 1;
        radii[rank] = found_at[c];
    }
    let mut class = vec![Class::Missing; bursts.list.len()];
    for (k, &l) in labels.iter().enumerate() {
        class[kept[k]] = if l == dbscan::NOISE {
            Class::Noise
        } else {
            Class::Cluster(number[l as usize])
        };
    }
    let (spmd, spmd_note) = spmd::scores(&bursts, &class, found as u32);
    let mut figures = figures(&bursts, &class, found as u32, &spmd);
    let mut joined = vec![0u64; found];
    for (k, &l) in labels.iter().enumerate() {
        if l != dbscan::NOISE && joined_at[k] > found_at[l as usize] {
            joined[number[l as usize] as usize - 1] += 1;
        }
    }
    for f in &mut figures {
        if let Class::Cluster(n) = f.class {
            f.found_at = Some(radii[n as usize - 1]);
            f.joined = joined[n as usize - 1];
        }
    }
    Clustering {
        bursts,
        options: options.clone(),
        eps,
        knee,
        values,
        class,
        figures,
        spmd_note,
    }
}

/// Per class: noise, clusters 1..=n, then missing data if any burst lacks a feature.
fn figures(
    bursts: &Bursts,
    class: &[Class],
    clusters: u32,
    spmd: &std::collections::HashMap<Class, f64>,
) -> Vec<ClusterFigures> {
    let all: u64 = bursts.list.iter().map(Burst::duration).sum();
    let ins = bursts
        .counters
        .iter()
        .position(|&c| c == bursts.ipc_types.0);
    let cyc = bursts
        .counters
        .iter()
        .position(|&c| c == bursts.ipc_types.1);
    let mut classes = vec![Class::Noise];
    classes.extend((1..=clusters).map(Class::Cluster));
    if class.contains(&Class::Missing) {
        classes.push(Class::Missing);
    }
    classes
        .into_iter()
        .map(|c| {
            let members: Vec<&Burst> = bursts
                .list
                .iter()
                .zip(class)
                .filter(|(_, k)| **k == c)
                .map(|(b, _)| b)
                .collect();
            let n = members.len() as u64;
            let total: u64 = members.iter().map(|b| b.duration()).sum();
            let sum = |k: Option<usize>| k.map(|k| members.iter().map(|b| b.counters[k]).sum());
            let (si, sc): (Option<f64>, Option<f64>) = (sum(ins), sum(cyc));
            ClusterFigures {
                class: c,
                bursts: n,
                total,
                share: if all > 0 {
                    total as f64 / all as f64
                } else {
                    0.0
                },
                mean_ns: if n > 0 {
                    total as f64 * bursts.ns_per_tick / n as f64
                } else {
                    0.0
                },
                mean_instructions: si.filter(|_| n > 0).map(|s| s / n as f64),
                ipc: match (si, sc) {
                    (Some(i), Some(c)) if c > 0.0 => Some(i / c),
                    _ => None,
                },
                spmd: spmd.get(&c).copied(),
                found_at: None,
                joined: 0,
            }
        })
        .collect()
}
