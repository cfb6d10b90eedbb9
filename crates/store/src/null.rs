//! Null ("no value here"): the sentinel `N` is stored as, whether 0 is null too, and how the
//! command line overrides the `.pcf`; the helpers every reader of values uses to skip
//! nulls.

use prvscope_format::{NullValue, Pcf};

/// The value Paraver's `N` is stored as unless the `.pcf` or the command line say otherwise.
pub const DEFAULT_SENTINEL: u64 = u64::MAX;

/// How to tell a null ("no value here") from a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NullPolicy {
    /// The stored value that means null (`N` in the file is stored as this).
    pub sentinel: u64,
    /// Legacy Paraver semantics: a 0 value is null too.
    pub zero_is_null: bool,
}

impl Default for NullPolicy {
    /// Legacy traces: 0 is null, and `N` is null as well.
    fn default() -> Self {
        NullPolicy {
            sentinel: DEFAULT_SENTINEL,
            zero_is_null: true,
        }
    }
}

impl NullPolicy {
    /// The NULL mode: only the sentinel is null, zero is a value.
    pub fn sentinel(sentinel: u64) -> Self {
        NullPolicy {
            sentinel,
            zero_is_null: false,
        }
    }

    /// True when `value` means "no value".
    #[inline]
    pub fn is_null(&self, value: u64) -> bool {
        value == self.sentinel || (self.zero_is_null && value == 0)
    }

    /// `zero` in legacy mode, `sentinel` in the NULL mode (the names `info` prints).
    pub fn mode_name(&self) -> &'static str {
        if self.zero_is_null {
            "zero"
        } else {
            "sentinel"
        }
    }
}

/// How to read null values, overriding the `.pcf` (`--null` on the command line).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum NullOverride {
    /// As the `.pcf` says: NULL mode with `NULL_VALUE`, legacy (zero is null) otherwise.
    #[default]
    Auto,
    /// Legacy: zero is null (and `N` too).
    Zero,
    /// NULL mode with this sentinel (`N` is stored as it; zero is a value).
    Sentinel(u64),
}

impl std::str::FromStr for NullOverride {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(NullOverride::Auto),
            "zero" => Ok(NullOverride::Zero),
            "N" | "n" => Ok(NullOverride::Sentinel(DEFAULT_SENTINEL)),
            _ => s
                .parse::<u64>()
                .map(NullOverride::Sentinel)
                .map_err(|_| format!("expected auto, zero, N or a number, found `{s}`")),
        }
    }
}

/// The null policy from the command line override and the `.pcf`.
pub fn resolve_policy(null: NullOverride, pcf: Option<&Pcf>) -> NullPolicy {
    match null {
        NullOverride::Zero => NullPolicy::default(),
        NullOverride::Sentinel(s) => NullPolicy::sentinel(s),
        NullOverride::Auto => match pcf.and_then(|p| p.null_value) {
            Some(NullValue::N) => NullPolicy::sentinel(DEFAULT_SENTINEL),
            Some(NullValue::Number(n)) => NullPolicy::sentinel(n),
            None => NullPolicy::default(),
        },
    }
}

/// The larger of two values where `sentinel` means "no value".
#[inline]
pub fn max_of(a: u64, b: u64, sentinel: u64) -> u64 {
    if a == sentinel {
        b
    } else if b == sentinel {
        a
    } else {
        a.max(b)
    }
}

/// An order-preserving key of a value: null (`sentinel`) is 0 and a value `v` is `v + 1`
/// (saturating), so the largest non-null value is a plain maximum of keys.
#[inline]
pub fn key(value: u64, sentinel: u64) -> u64 {
    if value == sentinel {
        0
    } else {
        value.saturating_add(1)
    }
}

/// The largest value of `values` that is not `sentinel`, or `sentinel` when there is none.
#[inline]
pub fn max_non_null(values: &[u64], sentinel: u64) -> u64 {
    // Keys: null -> 0, x -> x + 1, so the maximum needs no branch. Only a real u64::MAX (a
    // trace whose sentinel is another number) saturates; then the exact loop decides.
    let top = values.iter().fold(0u64, |a, &x| a.max(key(x, sentinel)));
    match top {
        0 => sentinel,
        u64::MAX => values
            .iter()
            .copied()
            .filter(|&x| x != sentinel)
            .max()
            .unwrap_or(sentinel),
        k => k - 1,
    }
}
