//! The day's results in the output folder: `timeline.csv` (one row per 10 s, written as the run
//! goes), `requests.csv` (per kind of request), `summary.json` (settings, figures, goals,
//! checks), and the same printed.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use serde::Serialize;
use serde_json::{Value, json};

use crate::kinds::{Class, Kind};
use crate::sampler::Sample;
use crate::stats::{Histogram, Tally};

/// The timeline file, a row per sample.
pub struct Timeline {
    file: File,
    header: bool,
}

impl Timeline {
    /// Creates `timeline.csv` in `folder`.
    pub fn create(folder: &Path) -> std::io::Result<Self> {
        Ok(Self {
            file: File::create(folder.join("timeline.csv"))?,
            header: false,
        })
    }

    /// Appends `sample` (columns by name, in name order).
    pub fn write(&mut self, sample: &Sample) -> std::io::Result<()> {
        let Ok(Value::Object(fields)) = serde_json::to_value(sample) else {
            return Ok(());
        };
        if !self.header {
            let names: Vec<&str> = fields.keys().map(String::as_str).collect();
            writeln!(self.file, "{}", names.join(","))?;
            self.header = true;
        }
        let values: Vec<String> = fields.values().map(Value::to_string).collect();
        writeln!(self.file, "{}", values.join(","))?;
        self.file.flush()
    }
}

/// One kind's figures.
#[derive(Serialize)]
pub struct KindFigures {
    kind: &'static str,
    class: &'static str,
    sent: u64,
    rate_per_s: f64,
    ok: u64,
    refused_4xx: u64,
    server_errors_5xx: u64,
    unanswered: u64,
    retried: u64,
    p50_ms: f64,
    p99_ms: f64,
    max_ms: f64,
    refusals: String,
}

/// The per-kind figures over `seconds`, and the reads' and writes' latencies merged.
pub fn kinds(
    tallies: &std::collections::BTreeMap<Kind, Tally>,
    seconds: f64,
) -> (Vec<KindFigures>, Histogram, Histogram) {
    let (mut reads, mut writes) = (Histogram::default(), Histogram::default());
    let mut figures = Vec::new();
    for kind in Kind::ALL {
        let Some(tally) = tallies.get(&kind) else {
            continue;
        };
        match kind.class() {
            Class::Read => reads.merge(&tally.latency),
            Class::Write => writes.merge(&tally.latency),
        }
        figures.push(KindFigures {
            kind: kind.name(),
            class: if kind.class() == Class::Read {
                "read"
            } else {
                "write"
            },
            sent: tally.sent(),
            rate_per_s: tally.sent() as f64 / seconds,
            ok: tally.ok,
            refused_4xx: tally.refused.values().sum(),
            server_errors_5xx: tally.server_errors_total(),
            unanswered: tally.transport_errors,
            retried: tally.retried,
            p50_ms: tally.latency.quantile_ms(0.5),
            p99_ms: tally.latency.quantile_ms(0.99),
            max_ms: tally.latency.max_ms(),
            refusals: tally
                .refused
                .iter()
                .map(|(code, n)| format!("{code}={n}"))
                .collect::<Vec<_>>()
                .join(";"),
        });
    }
    (figures, reads, writes)
}

/// Writes `requests.csv`.
pub fn write_requests(folder: &Path, figures: &[KindFigures]) -> std::io::Result<()> {
    let mut file = File::create(folder.join("requests.csv"))?;
    writeln!(
        file,
        "kind,class,sent,rate_per_s,ok,refused_4xx,server_errors_5xx,unanswered,retried,p50_ms,p99_ms,max_ms,refusals"
    )?;
    for f in figures {
        writeln!(
            file,
            "{},{},{},{:.2},{},{},{},{},{},{:.2},{:.2},{:.2},{}",
            f.kind,
            f.class,
            f.sent,
            f.rate_per_s,
            f.ok,
            f.refused_4xx,
            f.server_errors_5xx,
            f.unanswered,
            f.retried,
            f.p50_ms,
            f.p99_ms,
            f.max_ms,
            f.refusals
        )?;
    }
    Ok(())
}

/// Prints the per-kind table.
pub fn print_requests(figures: &[KindFigures]) {
    println!(
        "{:<18} {:>8} {:>8} {:>8} {:>6} {:>5} {:>6} {:>8} {:>8}",
        "kind", "sent", "req/s", "ok", "4xx", "5xx", "lost", "p50 ms", "p99 ms"
    );
    for f in figures {
        println!(
            "{:<18} {:>8} {:>8.1} {:>8} {:>6} {:>5} {:>6} {:>8.2} {:>8.2}",
            f.kind,
            f.sent,
            f.rate_per_s,
            f.ok,
            f.refused_4xx,
            f.server_errors_5xx,
            f.unanswered,
            f.p50_ms,
            f.p99_ms
        );
    }
}

/// Seconds of samples whose median stands for each end of a node's RSS span.
const SPAN_END: f64 = 60.0;

/// A node's memory fields in the timeline.
pub struct NodeMemory {
    /// Its RSS.
    pub rss: fn(&Sample) -> f64,
    /// Its anonymous RSS.
    pub anon: fn(&Sample) -> f64,
    /// Its boards' memory.
    pub boards: fn(&Sample) -> f64,
}

/// The RSS growth of a node over its last life, from `settle` seconds after that life began
/// (or its first sample) to the end. Each end is the median of its minute of samples (RSS
/// moves by a few MiB from one sample to the next), leaving out samples whose metrics did not
/// answer. Answers from and to MiB and %, the same for the anonymous RSS (the heap; the rest
/// is the binary's pages, read in as code runs for the first time), the boards' memory at both
/// ends, and the growth of the anonymous RSS less the boards' (which grow with the players and
/// results they hold).
pub fn rss_growth(timeline: &[Sample], node: &NodeMemory, settle: f64) -> Value {
    let NodeMemory { rss, anon, boards } = *node;
    let life_start = timeline
        .iter()
        .rev()
        .take_while(|sample| rss(sample) > 0.0)
        .last()
        .map_or(0.0, |sample| sample.t);
    let life: Vec<&Sample> = timeline
        .iter()
        .filter(|sample| sample.t >= life_start + settle && rss(sample) > 0.0)
        .filter(|sample| boards(sample) > 0.0)
        .collect();
    let (Some(first), Some(last)) = (life.first(), life.last()) else {
        return Value::Null;
    };
    let median = |samples: &[&Sample], value: &dyn Fn(&Sample) -> f64| {
        quantile(samples.iter().map(|sample| value(sample)).collect(), 0.5)
    };
    let start: Vec<&Sample> = life
        .iter()
        .copied()
        .filter(|sample| sample.t < first.t + SPAN_END)
        .collect();
    let end: Vec<&Sample> = life
        .iter()
        .copied()
        .filter(|sample| sample.t > last.t - SPAN_END)
        .collect();
    let rest = |sample: &Sample| anon(sample) - boards(sample);
    let growth = |from: f64, to: f64| (to - from) / from * 100.0;
    let (from, to) = (median(&start, &rss), median(&end, &rss));
    let (anon_from, anon_to) = (median(&start, &anon), median(&end, &anon));
    let (rest_from, rest_to) = (median(&start, &rest), median(&end, &rest));
    json!({
        "from_t": first.t, "from_mib": from, "to_mib": to, "growth_pct": growth(from, to),
        "anon_from_mib": anon_from, "anon_to_mib": anon_to,
        "anon_growth_pct": growth(anon_from, anon_to),
        "boards_from_mib": median(&start, &boards), "boards_to_mib": median(&end, &boards),
        "anon_less_boards_growth_pct": growth(rest_from, rest_to),
    })
}

/// The `q` quantile of `values`.
pub fn quantile(mut values: Vec<f64>, q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let index = ((q * values.len() as f64).ceil() as usize).clamp(1, values.len()) - 1;
    values[index]
}

/// The mean of `values`.
pub fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0), |(sum, n), value| (sum + value, n + 1));
    if n == 0 { 0.0 } else { sum / f64::from(n) }
}
