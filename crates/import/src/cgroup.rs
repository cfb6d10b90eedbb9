//! The memory this process's own control group leaves it.
//!
//! Slurm jobs, containers and systemd services put a process in a memory cgroup whose limit
//! is far below the machine's `MemAvailable`: a load that ignores it is killed by the kernel
//! (exit 137) half-way instead of being offered a part of the trace. The limit that counts is
//! the one of the process's own cgroup and of each cgroup above it:
//! - `/proc/self/cgroup` names the process's cgroup: `0::/path` for the unified (v2)
//!   hierarchy, `N:memory:/path` (the controller among others, comma-separated) for v1;
//! - `/proc/self/mountinfo` says where that hierarchy is mounted and which of its cgroups is
//!   the mount's root (inside a container the mount shows only the container's own subtree:
//!   its root is the container's cgroup, so its path is stripped from the process's);
//! - from the process's cgroup up to the mount point, each level with a limit (v1
//!   `memory.limit_in_bytes` and `memory.usage_in_bytes`, v2 `memory.max` and
//!   `memory.current`) leaves `limit - (usage - inactive file pages)`: the kernel reclaims
//!   inactive page cache before it kills. The smallest of them is the headroom.
//!
//! Where both hierarchies exist (hybrid hosts), both are read and the smaller headroom wins.

use std::path::{Path, PathBuf};

/// A v1 limit at or above this is "no limit" (the kernel writes 2^63 rounded down to a page).
const V1_UNLIMITED: u64 = 1 << 62;

/// What one cgroup level says about memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level {
    /// The cgroup's folder.
    pub dir: PathBuf,
    /// Its limit in bytes.
    pub limit: u64,
    /// Memory charged to it now (its children included), in bytes.
    pub usage: u64,
    /// Of `usage`, inactive file pages the kernel reclaims first.
    pub reclaimable: u64,
}

impl Level {
    /// What this level leaves: the limit minus the memory charged that cannot be reclaimed.
    pub fn headroom(&self) -> u64 {
        self.limit
            .saturating_sub(self.usage.saturating_sub(self.reclaimable))
    }
}

/// Memory left by the cgroup limits of this process (see the module documentation); `None`
/// where no cgroup limits it or the files cannot be read.
pub fn headroom() -> Option<u64> {
    headroom_under(Path::new("/"))
}

/// [`headroom`] read from a tree rooted at `root` (the tests build one per layout).
pub fn headroom_under(root: &Path) -> Option<u64> {
    limited_levels(root).iter().map(Level::headroom).min()
}

/// Every limited level above this process, in both hierarchies, from the process's own
/// cgroup upwards.
pub fn limited_levels(root: &Path) -> Vec<Level> {
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap_or_default();
    let cgroups = read("proc/self/cgroup");
    let mounts = read("proc/self/mountinfo");
    let mut out = Vec::new();
    for version in [Version::V1, Version::V2] {
        let Some(path) = own_path(&cgroups, version) else {
            continue;
        };
        let Some((mount_root, mount_point)) = mount(&mounts, version) else {
            continue;
        };
        let base = root.join(mount_point.trim_start_matches('/'));
        let rel = path
            .strip_prefix(mount_root.as_str())
            .filter(|_| mount_root != "/")
            .unwrap_or(&path);
        let mut dir = base.join(rel.trim_start_matches('/'));
        if !dir.is_dir() {
            // A cgroup namespace or a path the mount does not show: the mount's root is the
            // nearest level seen.
            dir.clone_from(&base);
        }
        loop {
            if let Some(level) = read_level(&dir, version) {
                out.push(level);
            }
            if dir == base || !dir.starts_with(&base) || !dir.pop() {
                break;
            }
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    V1,
    V2,
}

/// The process's cgroup path in the hierarchy of `version`, from `/proc/self/cgroup`.
fn own_path(cgroups: &str, version: Version) -> Option<String> {
    cgroups.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let id = fields.next()?;
        let controllers = fields.next()?;
        let path = fields.next()?;
        let wanted = match version {
            Version::V2 => id == "0" && controllers.is_empty(),
            Version::V1 => controllers.split(',').any(|c| c == "memory"),
        };
        wanted.then(|| path.to_string())
    })
}

/// (root within the hierarchy, mount point) of the mount of `version`'s memory hierarchy,
/// from `/proc/self/mountinfo` (`id parent dev root point options [optional...] - type
/// source super-options`).
fn mount(mounts: &str, version: Version) -> Option<(String, String)> {
    mounts.lines().find_map(|line| {
        let (before, after) = line.split_once(" - ")?;
        let mut before = before.split(' ');
        let root = before.nth(3)?;
        let point = before.next()?;
        let mut after = after.split(' ');
        let fstype = after.next()?;
        let options = after.nth(1).unwrap_or("");
        let wanted = match version {
            Version::V2 => fstype == "cgroup2",
            Version::V1 => fstype == "cgroup" && options.split(',').any(|o| o == "memory"),
        };
        wanted.then(|| (unescape(root), unescape(point)))
    })
}

/// mountinfo escapes space, tab, newline and backslash as `\ooo`.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'\\'
            && let Some(digits) = b.get(i + 1..i + 4)
            && digits.iter().all(|d| (b'0'..=b'7').contains(d))
        {
            let v = digits
                .iter()
                .fold(0u32, |acc, d| acc * 8 + u32::from(d - b'0'));
            out.push(v as u8);
            i += 4;
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The limit of the cgroup in `dir`, if it has one.
fn read_level(dir: &Path, version: Version) -> Option<Level> {
    let file = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
    let number = |name: &str| file(name)?.trim().parse::<u64>().ok();
    let (limit, usage, inactive_key) = match version {
        Version::V1 => (
            number("memory.limit_in_bytes").filter(|&l| l < V1_UNLIMITED)?,
            number("memory.usage_in_bytes")?,
            "total_inactive_file",
        ),
        // "max" does not parse: no limit.
        Version::V2 => (
            number("memory.max")?,
            number("memory.current")?,
            "inactive_file",
        ),
    };
    let reclaimable = file("memory.stat")
        .and_then(|stat| {
            stat.lines().find_map(|l| {
                let (key, value) = l.split_once(' ')?;
                (key == inactive_key)
                    .then(|| value.trim().parse().ok())
                    .flatten()
            })
        })
        .unwrap_or(0);
    Some(Level {
        dir: dir.to_path_buf(),
        limit,
        usage,
        reclaimable,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake `/` with `/proc/self/{cgroup,mountinfo}` and cgroup files.
    struct Tree(PathBuf);

    impl Tree {
        fn new(name: &str, cgroup: &str, mountinfo: &str) -> Self {
            let root =
                std::env::temp_dir().join(format!("prvscope-cgroup-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            std::fs::create_dir_all(root.join("proc/self")).unwrap();
            std::fs::write(root.join("proc/self/cgroup"), cgroup).unwrap();
            std::fs::write(root.join("proc/self/mountinfo"), mountinfo).unwrap();
            Tree(root)
        }

        fn file(&self, path: &str, text: &str) -> &Self {
            let p = self.0.join(path.trim_start_matches('/'));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
            self
        }

        fn headroom(&self) -> Option<u64> {
            headroom_under(&self.0)
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const MIB: u64 = 1 << 20;

    const V1_MOUNTS: &str = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:12 - cgroup cgroup rw,memory
40 31 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";

    /// Slurm on a cgroup v1 host: the job's step has the limit, the job above a larger one.
    #[test]
    fn v1_job_step_limit_and_the_levels_above() {
        let t = Tree::new(
            "v1",
            "12:pids:/slurm/uid_1000/job_7/step_0\n\
             4:memory:/slurm/uid_1000/job_7/step_0\n\
             2:cpu,cpuacct:/slurm/uid_1000/job_7/step_0\n\
             0::/user.slice\n",
            V1_MOUNTS,
        );
        let step = "/sys/fs/cgroup/memory/slurm/uid_1000/job_7/step_0";
        let job = "/sys/fs/cgroup/memory/slurm/uid_1000/job_7";
        t.file(&format!("{step}/memory.limit_in_bytes"), "805306368\n")
            .file(&format!("{step}/memory.usage_in_bytes"), "104857600\n")
            .file(
                &format!("{step}/memory.stat"),
                "cache 62914560\ninactive_file 1\ntotal_inactive_file 41943040\n",
            )
            .file(&format!("{job}/memory.limit_in_bytes"), "2147483648\n")
            .file(&format!("{job}/memory.usage_in_bytes"), "209715200\n")
            .file(
                "/sys/fs/cgroup/memory/memory.limit_in_bytes",
                "9223372036854771712\n",
            )
            .file(
                "/sys/fs/cgroup/memory/memory.usage_in_bytes",
                "4063952896\n",
            );
        let levels = limited_levels(&t.0);
        assert_eq!(levels.len(), 2, "{levels:?}");
        assert!(levels.first().unwrap().dir.ends_with("job_7/step_0"));
        // 768 MiB - (100 MiB - 40 MiB inactive).
        assert_eq!(t.headroom(), Some(768 * MIB - 60 * MIB));
    }

    /// The job's own level leaves less than the step's (another step uses the rest).
    #[test]
    fn v1_the_tightest_level_wins() {
        let t = Tree::new("v1-tight", "4:memory:/job/step\n", V1_MOUNTS);
        t.file(
            "/sys/fs/cgroup/memory/job/step/memory.limit_in_bytes",
            "1073741824",
        )
        .file("/sys/fs/cgroup/memory/job/step/memory.usage_in_bytes", "0")
        .file(
            "/sys/fs/cgroup/memory/job/memory.limit_in_bytes",
            "1073741824",
        )
        .file(
            "/sys/fs/cgroup/memory/job/memory.usage_in_bytes",
            "966367641",
        );
        assert_eq!(t.headroom(), Some(1_073_741_824 - 966_367_641));
    }

    /// Docker on a v1 host: the memory mount shows only the container's subtree, whose root
    /// is the container's own cgroup.
    #[test]
    fn v1_container_mount_rooted_at_its_own_cgroup() {
        let t = Tree::new(
            "v1-docker",
            "9:memory:/docker/abc123\n",
            "500 400 0:40 /docker/abc123 /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory\n",
        );
        t.file("/sys/fs/cgroup/memory/memory.limit_in_bytes", "805306368")
            .file("/sys/fs/cgroup/memory/memory.usage_in_bytes", "5242880");
        assert_eq!(t.headroom(), Some(768 * MIB - 5 * MIB));
    }

    /// cgroup v2: the limit is on a parent (systemd slice), "max" below it.
    #[test]
    fn v2_limit_on_a_parent() {
        let t = Tree::new(
            "v2",
            "0::/user.slice/user-1000.slice/session-3.scope\n",
            "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n",
        );
        let scope = "/sys/fs/cgroup/user.slice/user-1000.slice/session-3.scope";
        let user = "/sys/fs/cgroup/user.slice/user-1000.slice";
        t.file(&format!("{scope}/memory.max"), "max\n")
            .file(&format!("{scope}/memory.current"), "1000\n")
            .file(&format!("{user}/memory.max"), "805306368\n")
            .file(&format!("{user}/memory.current"), "314572800\n")
            .file(
                &format!("{user}/memory.stat"),
                "anon 1\nfile 3\ninactive_file 104857600\nactive_file 2\n",
            );
        // 768 MiB - (300 MiB - 100 MiB).
        assert_eq!(t.headroom(), Some(568 * MIB));
    }

    /// A v2 container (cgroup namespace): `/proc/self/cgroup` says `0::/` and the mount is
    /// the container's cgroup.
    #[test]
    fn v2_container_namespace() {
        let t = Tree::new(
            "v2-ns",
            "0::/\n",
            "600 500 0:30 / /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw\n",
        );
        t.file("/sys/fs/cgroup/memory.max", "536870912")
            .file("/sys/fs/cgroup/memory.current", "0");
        assert_eq!(t.headroom(), Some(512 * MIB));
    }

    /// No limit anywhere (v1 "unlimited", v2 "max"), or no cgroup files at all.
    #[test]
    fn unlimited_or_absent() {
        let t = Tree::new("none", "4:memory:/\n0::/\n", V1_MOUNTS);
        t.file(
            "/sys/fs/cgroup/memory/memory.limit_in_bytes",
            "9223372036854771712",
        )
        .file("/sys/fs/cgroup/memory/memory.usage_in_bytes", "100")
        .file("/sys/fs/cgroup/unified/memory.max", "max")
        .file("/sys/fs/cgroup/unified/memory.current", "100");
        assert_eq!(t.headroom(), None);
        let empty = Tree::new("empty", "", "");
        assert_eq!(empty.headroom(), None);
    }

    /// A hybrid host with limits in both hierarchies: the smaller headroom.
    #[test]
    fn hybrid_takes_the_smaller() {
        let t = Tree::new("hybrid", "4:memory:/a\n0::/b\n", V1_MOUNTS);
        t.file("/sys/fs/cgroup/memory/a/memory.limit_in_bytes", "900")
            .file("/sys/fs/cgroup/memory/a/memory.usage_in_bytes", "100")
            .file("/sys/fs/cgroup/unified/b/memory.max", "700")
            .file("/sys/fs/cgroup/unified/b/memory.current", "100");
        assert_eq!(t.headroom(), Some(600));
    }

    #[test]
    fn mount_points_with_escaped_spaces() {
        assert_eq!(unescape(r"/mnt/my\040cgroups"), "/mnt/my cgroups");
        assert_eq!(unescape(r"/a\\b"), r"/a\\b");
        assert_eq!(unescape(r"/a\134b"), r"/a\b");
    }

    /// On the machine running the tests, whatever its layout: every limited level found is
    /// a folder that exists, and the headroom is the smallest level's.
    #[test]
    fn this_machine() {
        let levels = limited_levels(Path::new("/"));
        for l in &levels {
            assert!(l.dir.is_dir(), "{l:?}");
        }
        assert_eq!(headroom(), levels.iter().map(Level::headroom).min());
    }
}
