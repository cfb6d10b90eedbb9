//! Cfgs written back (`cfg_write`): every shared cfg reads back the same after writing, and,
//! with `PARAMEDIR=path/to/paramedir` set, BSC's paramedir computes each written cfg to the
//! same output as the cfg it came from, on the shared reference traces.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use prvscope_paraver::cfg::Cfg;
use prvscope_paraver::cfg_write;

fn cfgs(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            cfgs(&p, out);
        } else if p.extension().is_some_and(|x| x == "cfg") {
            out.push(p);
        }
    }
}

/// The cfg as read, but where its sections were in its file and the file's format: what a
/// cfg's text means.
fn meaning(mut c: Cfg) -> Cfg {
    c.file.clear();
    c.old_format = false;
    for w in &mut c.windows {
        w.line = 0;
    }
    for a in &mut c.analyzers {
        a.line = 0;
    }
    c
}

#[test]
fn every_shared_cfg_reads_back_the_same_after_writing() {
    let Some(shared) = common::shared() else {
        return;
    };
    let mut all = Vec::new();
    cfgs(&shared.join("paraver_cfgs"), &mut all);
    assert!(all.len() > 700, "{} cfgs", all.len());
    let mut read = 0;
    for path in &all {
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        let Ok(cfg) = Cfg::parse("original", &text) else {
            continue;
        };
        read += 1;
        let written = cfg_write::write(&cfg);
        let back = Cfg::parse("written", &written)
            .unwrap_or_else(|e| panic!("{}: the written cfg: {e}\n{written}", path.display()));
        // Sections keep their order.
        let order = |c: &Cfg| {
            let mut v: Vec<(usize, bool)> = c
                .windows
                .iter()
                .map(|w| (w.line, false))
                .chain(c.analyzers.iter().map(|a| (a.line, true)))
                .collect();
            v.sort_unstable();
            v.into_iter().map(|x| x.1).collect::<Vec<bool>>()
        };
        assert_eq!(order(&cfg), order(&back), "{}", path.display());
        assert_eq!(meaning(cfg), meaning(back), "{}\n{written}", path.display());
    }
    assert!(read > 700, "{read} cfgs read");
}

/// BSC's paramedir on the original and on the written cfg, same run: the same output.
#[test]
fn bsc_paramedir_computes_each_written_cfg_as_its_original() {
    let Some(shared) = common::shared() else {
        return;
    };
    let Some(bsc) = std::env::var_os("PARAMEDIR").map(PathBuf::from) else {
        eprintln!("PARAMEDIR not set: BSC's paramedir not compared");
        return;
    };
    let index = std::fs::read_to_string(shared.join("reference/paramedir/INDEX.tsv")).unwrap();
    let only = std::env::var("CFG_WRITE_TRACES").ok();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cfg-write");
    std::fs::create_dir_all(&dir).unwrap();
    let mut compared = 0;
    for line in index.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (trace, rel, status) = (f[0], f[1], f[3]);
        if status != "ok"
            || only
                .as_deref()
                .is_some_and(|o| !o.split(',').any(|t| t == trace))
        {
            continue;
        }
        let file = common::REFERENCE_TRACES
            .iter()
            .find(|t| t.starts_with(trace) || t.contains(&format!("/{trace}.prv")))
            .unwrap_or_else(|| panic!("trace {trace}"));
        let trace_path = shared.join("traces").join(file);
        let original = shared.join("paraver_cfgs").join(rel);
        let text = String::from_utf8_lossy(&std::fs::read(&original).unwrap()).into_owned();
        let cfg = Cfg::parse("original", &text).unwrap();
        let written = dir.join("written.cfg");
        std::fs::write(&written, cfg_write::write(&cfg)).unwrap();
        // Each run in a folder of its own, its output named alike: the files written (a
        // timeline's `.csv` too) and what it prints, its folder's and the cfg's names aside.
        let run = |cfg: &Path, name: &str| -> String {
            let sub = dir.join(name);
            let _ = std::fs::remove_dir_all(&sub);
            std::fs::create_dir_all(&sub).unwrap();
            let o = Command::new(&bsc)
                .arg(&trace_path)
                .arg(cfg)
                .arg(sub.join("out"))
                .output()
                .unwrap();
            let mut files: Vec<PathBuf> = std::fs::read_dir(&sub)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            let mut all = String::new();
            for f in files {
                all.push_str(&f.file_name().unwrap().to_string_lossy());
                all.push('\n');
                all.push_str(&String::from_utf8_lossy(&std::fs::read(&f).unwrap()));
            }
            let printed = String::from_utf8_lossy(&o.stdout)
                .replace(&cfg.display().to_string(), "CFG")
                .replace(&sub.display().to_string(), "DIR");
            format!("{all}{printed}")
        };
        let theirs = run(&original, "original");
        let ours = run(&written, "written");
        assert_eq!(ours, theirs, "{trace} {rel}");
        compared += 1;
    }
    assert!(compared > 0);
    eprintln!("{compared} cfgs compared");
}
