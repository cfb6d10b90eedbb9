//! Byte sizes, printed and parsed with the same units: `kB`, `MB` and `GB` are powers of
//! 1000 both ways (`KiB`, `MiB` and `GiB`, powers of 1024, are accepted too), so a size
//! printed by prvscope and typed back (`--memory-budget 3.44GB`) is the same size.

/// `1.23 GB`, `456.7 MB`, `12.0 kB`, `999 B`.
pub fn human_bytes(b: u64) -> String {
    let b = b as f64;
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} kB", b / 1e3)
    } else {
        format!("{b} B")
    }
}

/// A quantity split into its number (digits and dots) and what follows.
fn number_and_unit(s: &str) -> (&str, &str) {
    let t = s.trim();
    let digits = t
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    t.split_at(digits)
}

/// Parses sizes like `100MB`, `1GB`, `512k`, `1.5GiB`, `4096`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let (num, unit) = number_and_unit(s);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("expected a size like 100MB, found `{s}`"))?;
    let mult = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "kib" => 1024.0,
        "mib" => 1_048_576.0,
        "gib" => 1_073_741_824.0,
        _ => return Err(format!("unknown size unit in `{s}`")),
    };
    if n.is_sign_negative() {
        return Err(format!("expected a positive size, found `{s}`"));
    }
    #[allow(clippy::cast_sign_loss)] // checked just above
    Ok((n * mult) as u64)
}

/// Parses a time: a number of ticks (`1370000`), or a number with a unit (`2.5s`, `300ms`,
/// `1200us` or `1200µs`, `40ns`), turned into ticks of `ns_per_tick` nanoseconds (rounded).
pub fn parse_time(s: &str, ns_per_tick: u64) -> Result<u64, String> {
    let (num, unit) = number_and_unit(s);
    let unit = unit.trim().to_ascii_lowercase();
    if unit.is_empty() {
        return num.parse::<u64>().map_err(|_| {
            format!("expected ticks or a time like 2.5s, 300ms, 1200us, found `{s}`")
        });
    }
    let n: f64 = num
        .parse()
        .map_err(|_| format!("expected a time like 2.5s, 300ms, 1200us, found `{s}`"))?;
    let ns = match unit.as_str() {
        "s" => 1e9,
        "ms" => 1e6,
        "us" | "µs" => 1e3,
        "ns" => 1.0,
        _ => return Err(format!("unknown time unit in `{s}` (s, ms, us or ns)")),
    };
    #[allow(clippy::cast_sign_loss)] // digits and a dot only: never negative
    Ok((n * ns / ns_per_tick.max(1) as f64).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert_eq!(parse_time("1370000", 1), Ok(1_370_000));
        assert_eq!(parse_time("2.5s", 1), Ok(2_500_000_000));
        assert_eq!(parse_time("300ms", 1), Ok(300_000_000));
        assert_eq!(parse_time("1200us", 1), Ok(1_200_000));
        assert_eq!(parse_time("1200 µs", 1000), Ok(1200));
        assert_eq!(parse_time("40ns", 1), Ok(40));
        assert_eq!(parse_time("1.5us", 1000), Ok(2));
        assert!(parse_time("2.5", 1).is_err());
        assert!(parse_time("3 min", 1).is_err());
        assert!(parse_time("ms", 1).is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("100MB"), Ok(100_000_000));
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("2k"), Ok(2000));
        assert_eq!(parse_size("1.5MiB"), Ok(1_572_864));
        assert!(parse_size("x").is_err());
    }

    /// A printed size typed back is the same size, up to the printed digits (the memory
    /// estimate once printed 2^30 bytes as "1.0 GB", which `--memory-budget` read as 10^9).
    #[test]
    fn a_printed_size_parses_back_to_itself() {
        for b in [
            999,
            12_345,
            8 << 20,
            1 << 30,
            3_440_000_000,
            8 << 30,
            700 << 30,
        ] {
            let printed = human_bytes(b);
            let back = parse_size(&printed.replace(' ', "")).unwrap();
            let error = back.abs_diff(b) as f64 / b as f64;
            assert!(
                error < 0.006,
                "{b} printed as {printed}, read back as {back}"
            );
        }
    }
}
