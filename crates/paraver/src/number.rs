//! Numbers as paramedir prints them: C++ `fixed` with the preferences' precision (2), `-nan`
//! and `nan` as glibc writes them, `-0.00` kept, and labels with `,` thousands separators.

/// `value` with `precision` decimals, as `std::fixed << setprecision(precision)` prints it.
pub fn fixed(value: f64, precision: usize) -> String {
    if value.is_nan() {
        // glibc prints the sign bit of a NaN; every NaN Paraver's arithmetic makes on x86
        // (0/0, inf-inf, sqrt of a negative) has it set.
        return "-nan".to_string();
    }
    if value.is_infinite() {
        return if value < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    // Rust and glibc both round the exact binary value, ties to even.
    format!("{value:.precision$}")
}

/// `value` with `precision` decimals and `,` between thousands, as Paraver's labels show it.
pub fn grouped(value: f64, precision: usize) -> String {
    let text = fixed(value, precision);
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text.as_str()),
    };
    if !digits.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        return text;
    }
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let mut out = String::with_capacity(text.len() + int.len() / 3);
    out.push_str(sign);
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_matches_printf() {
        assert_eq!(fixed(0.125, 2), "0.12");
        assert_eq!(fixed(0.375, 2), "0.38");
        assert_eq!(fixed(-0.001, 2), "-0.00");
        assert_eq!(fixed(f64::NAN.copysign(-1.0), 2), "-nan");
        assert_eq!(fixed(f64::NAN, 2), "-nan");
        assert_eq!(fixed(355_491.46, 2), "355491.46");
    }

    #[test]
    fn grouped_separates_thousands() {
        assert_eq!(grouped(1_234_567.891, 2), "1,234,567.89");
        assert_eq!(grouped(-1000.0, 2), "-1,000.00");
        assert_eq!(grouped(999.0, 2), "999.00");
        assert_eq!(grouped(0.5, 2), "0.50");
    }
}
