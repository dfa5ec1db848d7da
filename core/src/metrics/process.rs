//! The process's own gauges, under the names every Prometheus client gives them
//! (`process_cpu_seconds_total`, `process_resident_memory_bytes`, ...), and `build_info`: read
//! from `/proc` (the `procfs` crate) at each scrape. Linux only; elsewhere only `build_info`.

use std::fmt;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

/// Reads the process's CPU time, memory, file descriptors, threads and start time when scraped.
#[derive(Debug)]
pub(super) struct ProcessCollector;

/// `safezone_build_info{version}`: 1, labelled with the version of the running library.
#[derive(Debug)]
pub(super) struct BuildInfo;

impl Collector for BuildInfo {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), fmt::Error> {
        let mut metric = encoder.encode_descriptor(
            "build_info",
            "The running build: 1, labelled with Safezone's version.",
            None,
            MetricType::Gauge,
        )?;
        let labels = [("version", env!("CARGO_PKG_VERSION"))];
        ConstGauge::new(1_i64).encode(metric.encode_family(&labels)?)
    }
}

#[cfg(target_os = "linux")]
impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), fmt::Error> {
        use procfs::WithCurrentSystemInfo;

        // A /proc that cannot be read (a sandbox) leaves these gauges out; the scrape goes on.
        let Ok(process) = procfs::process::Process::myself() else {
            return Ok(());
        };
        if let Ok(stat) = process.stat() {
            let ticks = procfs::ticks_per_second() as f64;
            let cpu = (stat.utime + stat.stime) as f64 / ticks;
            let metric = encoder.encode_descriptor(
                "process_cpu_seconds",
                "Total user and system CPU time spent in seconds.",
                None,
                MetricType::Counter,
            )?;
            ConstCounter::new(cpu).encode(metric)?;
            let resident = stat.rss_bytes().get();
            gauge(
                &mut encoder,
                "process_resident_memory_bytes",
                "Resident memory size in bytes.",
                resident as f64,
            )?;
            gauge(
                &mut encoder,
                "process_virtual_memory_bytes",
                "Virtual memory size in bytes.",
                stat.vsize as f64,
            )?;
            gauge(
                &mut encoder,
                "process_threads",
                "Number of OS threads in the process.",
                stat.num_threads as f64,
            )?;
            if let Ok(boot) = procfs::boot_time_secs() {
                gauge(
                    &mut encoder,
                    "process_start_time_seconds",
                    "Start time of the process since the Unix epoch in seconds.",
                    boot as f64 + stat.starttime as f64 / ticks,
                )?;
            }
        }
        if let Ok(open) = process.fd_count() {
            gauge(
                &mut encoder,
                "process_open_fds",
                "Number of open file descriptors.",
                open as f64,
            )?;
        }
        if let Ok(limits) = process.limits()
            && let procfs::process::LimitValue::Value(max) = limits.max_open_files.soft_limit
        {
            gauge(
                &mut encoder,
                "process_max_fds",
                "Maximum number of open file descriptors.",
                max as f64,
            )?;
        }
        Ok(())
    }
}

#[cfg(not(target_os = "linux"))]
impl Collector for ProcessCollector {
    fn encode(&self, _encoder: DescriptorEncoder) -> Result<(), fmt::Error> {
        Ok(())
    }
}

/// One gauge without labels.
#[cfg(target_os = "linux")]
fn gauge(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    value: f64,
) -> Result<(), fmt::Error> {
    let metric = encoder.encode_descriptor(name, help, None, MetricType::Gauge)?;
    ConstGauge::new(value).encode(metric)
}
