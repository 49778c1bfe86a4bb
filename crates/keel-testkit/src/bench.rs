//! What keel's benches print: percentiles of a set of timed samples. The benches are plain
//! timing harnesses (no criterion) because their targets are percentiles.

use std::time::Duration;

/// The sample at percentile `p` (0.0–1.0) of `sorted`, nearest rank.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Prints `label`, padded to `width`, and the p50, p90 and p99 of `samples`.
// A bench prints its figures: this is the line it prints.
#[allow(clippy::print_stdout)]
pub fn report(label: &str, width: usize, mut samples: Vec<Duration>) {
    samples.sort();
    println!(
        "{label:<width$} p50 {:>9.3?}  p90 {:>9.3?}  p99 {:>9.3?}",
        percentile(&samples, 0.50),
        percentile(&samples, 0.90),
        percentile(&samples, 0.99)
    );
}
