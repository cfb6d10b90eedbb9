//! `prvscope paramedir`: BSC's `paramedir` command line, computed by prvscope. The same
//! arguments (`[-e] [-m] [-p] [-tu] TRACE CFG [OUTPUT] [CFG [OUTPUT]]...`), the same files
//! (a histogram to OUTPUT, a timeline to OUTPUT.csv; OUTPUT defaults to the cfg's name
//! without `.cfg`, in the current folder) and the same text in them, so that scripts that
//! call `paramedir` (pypop among them) work unchanged.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use prvscope_format::Subset;
use prvscope_paraver::bsc_reading::Reader;
use prvscope_paraver::cfg::Cfg;
use prvscope_paraver::paramedir::{Context, Error, Options};
use prvscope_store::NullOverride;

/// Run Paraver configuration files (.cfg) over a trace, as BSC's paramedir does.
#[derive(clap::Args)]
#[command(disable_help_flag = true)]
pub struct Args {
    /// `[-e] [-m] [-p] [-tu] [--profile] TRACE CFG [OUTPUT] [CFG [OUTPUT]]...`: -e hides
    /// empty histogram columns, -m writes a timeline as one file per object, -p writes only
    /// the selected plane of a 3D histogram, -tu writes timelines in the trace's time unit;
    /// --profile says on stderr how long the load and each cfg's phases took.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub args: Vec<OsString>,
}

/// What the command line asks.
#[derive(Debug, PartialEq)]
pub struct Request {
    pub options: Options,
    /// `--profile`: say on stderr how long the load and each cfg's phases took.
    pub profile: bool,
    pub trace: PathBuf,
    /// (cfg, output name), in paramedir's order: sorted by the cfg's path.
    pub cfgs: Vec<(PathBuf, PathBuf)>,
    /// The trace tools asked (`-c`/`--cutter`, `-f`/`--filter`), in the command line's order.
    pub tools: Vec<Tool>,
    /// The tools' options file (`.xml`).
    pub xml: Option<PathBuf>,
    /// `-o`/`--output-name`: the trace the tools write.
    pub output: Option<PathBuf>,
}

/// A trace tool of paramedir's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Cutter,
    Filter,
}

const USAGE: &str = "usage: prvscope paramedir [-e] [-m] [-p] [-tu] [--profile] TRACE CFG [OUTPUT] \
     [CFG [OUTPUT]]...\n   or: prvscope paramedir -c|--cutter|-f|--filter... [-o|--output-name OUT] TRACE \
     OPTIONS.xml [CFG [OUTPUT]]...";

/// Reads paramedir's arguments: a word ending in `.cfg` is a cfg, the word after a cfg that
/// is neither a cfg nor the trace is its output.
pub fn parse(args: &[OsString]) -> anyhow::Result<Request> {
    let mut options = Options::default();
    let mut profile = false;
    let mut trace = None;
    let mut cfgs: BTreeMap<PathBuf, PathBuf> = BTreeMap::new();
    let mut last_cfg: Option<PathBuf> = None;
    let (mut tools, mut xml, mut output) = (Vec::new(), None, None);
    let mut want_output = false;
    for arg in args {
        let s = arg.to_string_lossy();
        if want_output {
            anyhow::ensure!(
                !s.starts_with('-'),
                "expected the output's name after -o, found {s} ({USAGE})"
            );
            output = Some(PathBuf::from(arg));
            want_output = false;
            continue;
        }
        match s.as_ref() {
            "-c" | "--cutter" => tools.push(Tool::Cutter),
            "-f" | "--filter" => tools.push(Tool::Filter),
            "-o" | "--output-name" => want_output = true,
            _ if s.ends_with(".xml") => xml = Some(PathBuf::from(arg)),
            "-e" | "--empty-columns" => options.hide_empty_columns = true,
            "-m" | "--many-files" => options.many_files = true,
            "-p" | "--print-plane" => options.print_plane = true,
            "-tu" | "--trace-units" => options.trace_units = true,
            "--profile" => profile = true,
            "-h" | "--help" => anyhow::bail!("{USAGE}"),
            _ if s.starts_with('-') && s.len() > 1 => {
                anyhow::bail!("paramedir option {s} is not supported by prvscope ({USAGE})")
            }
            _ if s.ends_with(".cfg") => {
                let cfg = PathBuf::from(arg);
                let name = cfg.file_stem().map(PathBuf::from).unwrap_or_default();
                cfgs.insert(cfg.clone(), name);
                last_cfg = Some(cfg);
                continue;
            }
            _ if trace.is_none() && last_cfg.is_none() => trace = Some(PathBuf::from(arg)),
            _ => match last_cfg.take() {
                Some(cfg) => {
                    cfgs.insert(cfg, PathBuf::from(arg));
                }
                None => {
                    anyhow::bail!("{s}: neither a trace, a .cfg nor the output of a cfg ({USAGE})")
                }
            },
        }
        last_cfg = None;
    }
    anyhow::ensure!(!want_output, "-o needs the output's name ({USAGE})");
    let trace = trace.ok_or_else(|| anyhow::anyhow!("no trace given ({USAGE})"))?;
    anyhow::ensure!(
        !cfgs.is_empty() || !tools.is_empty(),
        "no .cfg given ({USAGE})"
    );
    anyhow::ensure!(
        tools.is_empty() || xml.is_some(),
        "the cutter and the filter need their options file (.xml) ({USAGE})"
    );
    anyhow::ensure!(
        output.as_ref() != Some(&trace),
        "the output trace is the source trace ({USAGE})"
    );
    Ok(Request {
        options,
        profile,
        trace,
        cfgs: cfgs.into_iter().collect(),
        tools,
        xml,
        output,
    })
}

/// Runs `paramedir`. Like BSC's tool, a cfg that cannot be computed is reported and the
/// others still run; the exit status says whether every cfg was written.
pub fn run(args: &Args) -> anyhow::Result<()> {
    if args.args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return Ok(());
    }
    let req = parse(&args.args)?;
    // The trace tools first: the cfgs (if any) then read the trace they wrote.
    let source = if req.tools.is_empty() {
        req.trace.clone()
    } else {
        run_tools(&req)?
    };
    if req.cfgs.is_empty() {
        return Ok(());
    }
    let started = std::time::Instant::now();
    let mut t = load(&source)?;
    let nulls = t.store.counts().null_values;
    // (Removed when the cfgs are written.)
    let mut bsc_dir = None;
    if nulls > 0 {
        // Never silent: `N` is prvscope's null, outside Paraver's format. The cfgs are
        // computed on the trace as BSC's paramedir reads it.
        drop(t);
        let (dir, view, read) = bsc_text(&source, Reader::Trace)?;
        eprintln!(
            "{}: {nulls} values are `N` (null), which Paraver's format does not have: read as \
             BSC's paramedir reads them (an `N` as 0 and the byte after it as the next field's \
             start: the pairs after it shift), {} event lines with an `N` among their pairs, \
             {} of them losing their last pairs (BSC: \"Error reading event record\"){}",
            source.display(),
            view.lines_rewritten,
            view.lines_failed,
            if view.lines_left_out > 0 {
                format!(", {} read no pair at all", view.lines_left_out)
            } else {
                String::new()
            }
        );
        t = read;
        bsc_dir = Some(dir);
    }
    let ctx = Context::new(&t);
    if req.profile {
        eprintln!(
            "profile: trace loaded in {:.3} s ({} records)",
            started.elapsed().as_secs_f64(),
            t.store.counts().total()
        );
    }
    let mut failed = 0;
    for (cfg_path, out) in &req.cfgs {
        match run_one(&ctx, cfg_path, out, &req.options, req.profile) {
            Ok(written) => {
                for w in written {
                    println!("{} file written", w.display());
                }
            }
            Err(e) => {
                failed += 1;
                eprintln!("{e}");
            }
        }
    }
    drop(ctx);
    super::let_go_at_exit(t);
    if let Some(dir) = bsc_dir {
        let _ = std::fs::remove_dir_all(dir);
    }
    anyhow::ensure!(
        failed == 0,
        "{failed} of {} cfgs not written",
        req.cfgs.len()
    );
    Ok(())
}

/// The trace at `path` as BSC's paramedir (`reader`) reads it (`prvscope_paraver::bsc_reading`): its
/// text written so into a folder of its own (with its `.pcf` and `.row`), and loaded from
/// there without the store cache. Returns the folder, what was read otherwise, the trace.
fn bsc_text(
    path: &Path,
    reader: Reader,
) -> anyhow::Result<(
    PathBuf,
    prvscope_paraver::bsc_reading::BscView,
    prvscope_store::Trace,
)> {
    use anyhow::Context as _;
    let dir = std::env::temp_dir().join(format!(
        "prvscope-paramedir-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&dir).with_context(|| format!("{}", dir.display()))?;
    let stem = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = stem
        .strip_suffix(".gz")
        .or_else(|| stem.strip_suffix(".xz"))
        .unwrap_or(&stem)
        .to_string();
    let text = dir.join(&stem);
    let written = (|| -> anyhow::Result<_> {
        let mut input = prvscope_import::output::open_text(path)?;
        let file = std::fs::File::create(&text).with_context(|| format!("{}", text.display()))?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        let view = prvscope_paraver::bsc_reading::bsc_view_as(&mut *input, &mut out, reader)
            .with_context(|| format!("{}: read as BSC's paramedir reads it", path.display()))?;
        std::io::Write::flush(&mut out).with_context(|| format!("{}", text.display()))?;
        prvscope_import::output::copy_side_files(path, &text)?;
        let t = super::load_checked(
            &text,
            NullOverride::Auto,
            &Subset::default(),
            &super::CacheArgs {
                no_cache: true,
                ..Default::default()
            },
            Some(None),
            prvscope_import::cache::CacheCheck::AtOpen,
        )?;
        Ok((view, t))
    })();
    match written {
        Ok((view, t)) => Ok((dir, view, t)),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            Err(e)
        }
    }
}

/// Loads `path` through the memory check, as the other commands: a trace that does not fit
/// is converted into the store cache instead of being killed by the kernel. Says the load's
/// warnings.
fn load(path: &Path) -> anyhow::Result<prvscope_store::Trace> {
    let t = super::load_checked(
        path,
        NullOverride::Auto,
        &Subset::default(),
        &super::CacheArgs::default(),
        Some(None),
        prvscope_import::cache::CacheCheck::AtOpen,
    )?;
    super::print_warnings(&t);
    Ok(t)
}

/// Runs paramedir's cutter and filter (in the command line's order) on the trace; returns
/// the trace written.
fn run_tools(req: &Request) -> anyhow::Result<PathBuf> {
    let xml = req.xml.as_deref().unwrap_or(Path::new(""));
    let opts = super::cut::read_options(xml)?;
    // paramedir is the drop-in for BSC's: its cut stops where BSC's cutter stops.
    let mut job = prvscope_paraver::cut::Job {
        stop_as_paraver: true,
        ..Default::default()
    };
    let mut names = Vec::new();
    for (i, tool) in req.tools.iter().enumerate() {
        anyhow::ensure!(
            !req.tools[..i].contains(tool),
            "the same tool twice is not supported by prvscope"
        );
        match tool {
            Tool::Cutter => {
                anyhow::ensure!(
                    job.filter.is_none(),
                    "a filter before the cutter is not supported by prvscope (the cutter then \
                     the filter is)"
                );
                job.cutter = Some(opts.cutter.clone().ok_or_else(|| {
                    anyhow::anyhow!("{}: holds no <cutter> section", xml.display())
                })?);
                names.push("chop");
            }
            Tool::Filter => {
                job.filter = Some(opts.filter.clone().ok_or_else(|| {
                    anyhow::anyhow!("{}: holds no <filter> section", xml.display())
                })?);
                names.push("filter");
            }
        }
    }
    let output = match &req.output {
        Some(o) => o.clone(),
        None => default_output(&req.trace, &names),
    };
    let trace = load(&req.trace)?;
    let nulls = trace.store.counts().null_values;
    if nulls == 0 {
        super::cut::write(&trace, &job, &output)?;
        return Ok(output);
    }
    // BSC's cutter and filter write each record's fields as they read them: a trace with
    // `N` values is cut from its text as they read it, under its own name.
    drop(trace);
    let reader = if job.cutter.is_some() {
        Reader::Cutter
    } else {
        Reader::Filter
    };
    let (dir, view, trace) = bsc_text(&req.trace, reader)?;
    eprintln!(
        "{}: {nulls} values are `N` (null), which Paraver's format does not have: written as \
         BSC's {} reads them (an `N` as 0 and the byte after it as the next field's start: the \
         pairs after it shift), {} lines with an `N`, {} of them with a pair that fails",
        req.trace.display(),
        if reader == Reader::Cutter {
            "cutter"
        } else {
            "filter"
        },
        view.lines_rewritten,
        view.lines_failed
    );
    job.source_name = Some(req.trace.clone());
    let written = super::cut::write(&trace, &job, &output);
    drop(trace);
    let _ = std::fs::remove_dir_all(dir);
    written?;
    Ok(output)
}

/// Paraver's name for a tool's output: the trace's name without `.prv` (or `.prv.gz`),
/// `.chop1`, `.filter1`..., `.prv`, the number the first for which neither that `.prv` nor
/// its `.prv.gz` exists.
fn default_output(trace: &Path, tools: &[&str]) -> PathBuf {
    let name = trace.to_string_lossy();
    let base = name
        .strip_suffix(".prv.gz")
        .or_else(|| name.strip_suffix(".prv.xz"))
        .or_else(|| name.strip_suffix(".prv"))
        .unwrap_or(&name);
    let mut n = 1;
    loop {
        let suffix = tools.iter().fold(String::new(), |mut s, t| {
            let _ = write!(s, ".{t}{n}");
            s
        });
        let prv = PathBuf::from(format!("{base}{suffix}.prv"));
        if !prv.exists() && !PathBuf::from(format!("{base}{suffix}.prv.gz")).exists() {
            return prv;
        }
        n += 1;
    }
}

fn run_one(
    ctx: &Context,
    cfg_path: &Path,
    out: &Path,
    options: &Options,
    profile: bool,
) -> anyhow::Result<Vec<PathBuf>> {
    let text = std::fs::read_to_string(cfg_path)
        .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", cfg_path.display()))?;
    let cfg = Cfg::parse(&cfg_path.to_string_lossy(), &text)?;
    let outcome = ctx
        .compute(&cfg, options)
        .map_err(|e: Error| anyhow::anyhow!("{e}"))?;
    for w in &outcome.warnings {
        println!("{}: {w}", cfg_path.display());
    }
    for n in &outcome.notes {
        eprintln!("note: {}: {n}", cfg_path.display());
    }
    if profile {
        eprintln!("profile: {}: {}", cfg_path.display(), outcome.profile);
    }
    let mut written = Vec::new();
    for (suffix, text) in outcome.files() {
        let mut name = out.as_os_str().to_owned();
        name.push(&suffix);
        let path = PathBuf::from(name);
        std::fs::write(&path, text)
            .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<OsString> {
        s.split_whitespace().map(OsString::from).collect()
    }

    #[test]
    fn arguments_are_read_as_paramedir_reads_them() {
        let r = parse(&args("-e t.prv b/y.cfg out.txt a/x.cfg")).unwrap();
        assert!(r.options.hide_empty_columns);
        assert_eq!(r.trace, PathBuf::from("t.prv"));
        assert_eq!(
            r.cfgs,
            vec![
                (PathBuf::from("a/x.cfg"), PathBuf::from("x")),
                (PathBuf::from("b/y.cfg"), PathBuf::from("out.txt"))
            ]
        );
        assert!(parse(&args("t.prv")).is_err());
        assert!(parse(&args("t.prv x.cfg o1 o2")).is_err());
        assert!(parse(&args("-z t.prv x.cfg")).is_err());
    }

    #[test]
    fn pypop_calls_are_read_as_paramedir_reads_them() {
        // pypop's chop_to_roi: a filter, then a cut.
        let r = parse(&args("--filter f.xml --output-name roi.prv t.prv")).unwrap();
        assert_eq!(r.tools, vec![Tool::Filter]);
        assert_eq!(r.xml, Some(PathBuf::from("f.xml")));
        assert_eq!(r.output, Some(PathBuf::from("roi.prv")));
        assert_eq!(r.trace, PathBuf::from("t.prv"));
        let r = parse(&args("--cutter t.prv c.xml --output-name out.prv")).unwrap();
        assert_eq!(r.tools, vec![Tool::Cutter]);
        assert_eq!(r.trace, PathBuf::from("t.prv"));
        assert!(r.cfgs.is_empty());
        let r = parse(&args("-c -f t.prv both.xml x.cfg")).unwrap();
        assert_eq!(r.tools, vec![Tool::Cutter, Tool::Filter]);
        assert_eq!(r.cfgs.len(), 1);
        assert!(parse(&args("--cutter t.prv")).is_err(), "no xml");
        assert!(
            parse(&args("--cutter t.prv c.xml -o")).is_err(),
            "no output name"
        );
        assert!(
            parse(&args("--cutter t.prv c.xml -o t.prv")).is_err(),
            "output is input"
        );
        assert_eq!(
            default_output(Path::new("/nonexistent/a.prv.gz"), &["chop", "filter"]),
            PathBuf::from("/nonexistent/a.chop1.filter1.prv")
        );
    }
}
