//! The crate's one set of number formatters: every latency, percentage and ratio the page prints goes through here, so
//! a chart's tick labels, its `aria-label` summary and its data table can never disagree about rounding or units.

/// Formats a duration given in **seconds** (the unit vLLM exports, e.g. `vllm:time_to_first_token_seconds`) the way
/// an operator reads it: `"0.4 ms"`, `"42 ms"`, `"412 ms"`, `"1.8 s"`, `"25 s"`.
///
/// Below 10 ms one decimal is kept because TPOT lives there; from 1 s on the unit switches to seconds so a runaway p99
/// reads as "25 s" rather than "25000 ms". The thresholds are checked after rounding, so 999.7 ms prints as "1.0 s",
/// never "1000 ms". Non-finite input (a missing or unbounded value) prints as "—".
pub fn format_latency(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "—".to_owned();
    }
    if seconds == 0.0 {
        return "0 ms".to_owned();
    }
    let millis = seconds * 1000.0;
    let magnitude = millis.abs();
    if magnitude < 9.95 {
        format!("{millis:.1} ms")
    } else if magnitude < 999.5 {
        format!("{millis:.0} ms")
    } else if magnitude < 9_950.0 {
        format!("{seconds:.1} s")
    } else {
        format!("{seconds:.0} s")
    }
}

/// Formats a fraction as a percentage: `0.97` → `"97%"`, `0.975` → `"97.5%"`, `0.62` → `"62%"`.
///
/// Whole percentages drop the decimal because the load slider moves in fine steps and "97.0%" reads as false
/// precision; a half step such as 97.5% keeps its one decimal so neighbouring settings stay distinguishable.
pub fn format_percent(fraction: f64) -> String {
    if !fraction.is_finite() {
        return "—".to_owned();
    }
    let percent = fraction * 100.0;
    if (percent - percent.round()).abs() < 0.05 {
        format!("{percent:.0}%")
    } else {
        format!("{percent:.1}%")
    }
}

/// Formats a ratio such as p99/p50 with one decimal and a multiplication sign: `4.125` → `"4.1×"`.
/// Ratios of 100 and more drop the decimal (`"250×"`), since at that point only the order of magnitude matters.
pub fn format_ratio(ratio: f64) -> String {
    if !ratio.is_finite() {
        return "—".to_owned();
    }
    if ratio.abs() >= 99.95 {
        format!("{ratio:.0}×")
    } else {
        format!("{ratio:.1}×")
    }
}

/// Formats a quantity (a rate in requests or tokens per second, an average count) with a precision that suits its size:
/// `0.42` → `"0.42"`, `3.14` → `"3.1"`, `42.4` → `"42"`, `1384.2` → `"1384"`. The unit is left to the caller.
pub fn format_number(rate: f64) -> String {
    if !rate.is_finite() {
        return "—".to_owned();
    }
    let magnitude = rate.abs();
    if magnitude < 0.995 && magnitude != 0.0 {
        format!("{rate:.2}")
    } else if magnitude < 9.95 {
        format!("{rate:.1}")
    } else {
        format!("{rate:.0}")
    }
}

/// A count as text: whole numbers without decimals (`20000`), others as [`format_number`] writes them.
pub fn format_count(count: f64) -> String {
    if count.is_finite() && count.fract() == 0.0 && count.abs() < 1e15 {
        format!("{count:.0}")
    } else {
        format_number(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_switch_to_seconds_after_rounding() {
        assert_eq!(format_latency(0.000_42), "0.4 ms");
        assert_eq!(format_latency(0.0421), "42 ms");
        assert_eq!(format_latency(0.412), "412 ms");
        assert_eq!(format_latency(0.9997), "1.0 s");
        assert_eq!(format_latency(1.8), "1.8 s");
        assert_eq!(format_latency(9.97), "10 s");
        assert_eq!(format_latency(1000.0), "1000 s");
        assert_eq!(format_latency(0.0), "0 ms");
        assert_eq!(format_latency(f64::INFINITY), "—");
    }

    #[test]
    fn percentages_keep_a_decimal_only_for_half_steps() {
        assert_eq!(format_percent(0.97), "97%");
        assert_eq!(format_percent(0.975), "97.5%");
        assert_eq!(format_percent(1.0), "100%");
        assert_eq!(format_ratio(4.125), "4.1×");
        assert_eq!(format_ratio(250.4), "250×");
        assert_eq!(format_number(3.08), "3.1");
        assert_eq!(format_number(0.42), "0.42");
        assert_eq!(format_number(1384.2), "1384");
    }
}
