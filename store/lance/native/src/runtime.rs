//! The tokio runtimes our calls block on. Separate from lancedb-go's own runtime so that a slow
//! optimize here never starves its calls, and sized for small machines. Upkeep (compaction,
//! index builds, version cleanup) has a runtime of its own at a lower priority.

use std::future::Future;
use std::sync::{Arc, Barrier, OnceLock};
use tokio::runtime::{Builder, Runtime};

static RUNTIME: OnceLock<Runtime> = OnceLock::new();
static UPKEEP: OnceLock<Runtime> = OnceLock::new();

fn workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(2, 8)
}

pub fn block_on<F: Future>(f: F) -> F::Output {
    RUNTIME
        .get_or_init(|| {
            Builder::new_multi_thread()
                .worker_threads(workers())
                .thread_name("pond-native")
                .enable_all()
                .build()
                .expect("pond-native: cannot start the tokio runtime")
        })
        .block_on(f)
}

/// Runs upkeep's work on threads that yield to everything else: its runtime's threads, and the
/// thread the future is made and polled on (not the caller's, whose priority could not be
/// raised back), run at nice 10. An upkeep takes minutes of both cores of a small machine; at
/// the same priority as the daemon's searches and captures, it doubled their latency while it
/// ran. On an idle machine it runs as fast as before. The future is made on that thread (by
/// `make`), so that it need not be Send.
pub fn block_on_upkeep<M, F>(make: M) -> F::Output
where
    M: FnOnce() -> F + Send,
    F: Future,
    F::Output: Send,
{
    let rt = UPKEEP.get_or_init(|| {
        start_lance_cpu_pool();
        Builder::new_multi_thread()
            .worker_threads(workers())
            .thread_name("pond-upkeep")
            .on_thread_start(lower_priority)
            .enable_all()
            .build()
            .expect("pond-native: cannot start the upkeep runtime")
    });
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("pond-upkeep".into())
            .spawn_scoped(s, || {
                lower_priority();
                rt.block_on(make())
            })
            .expect("pond-native: cannot start an upkeep thread")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Makes every thread of Lance's own pool for CPU-heavy steps (lance-cpu), which reads share with
/// upkeep, from the calling thread, before any upkeep thread exists: a thread is made at its
/// maker's priority, and the pool makes its threads on demand, from whichever thread first
/// needs one, and keeps them. Once it has as many as it may, none is made at nice 10.
fn start_lance_cpu_pool() {
    use lance_core::utils::tokio::{get_num_compute_intensive_cpus, CPU_RUNTIME};
    let n = get_num_compute_intensive_cpus();
    let all_running = Arc::new(Barrier::new(n + 1));
    for _ in 0..n {
        let all_running = all_running.clone();
        CPU_RUNTIME.spawn_blocking(move || {
            all_running.wait();
        });
    }
    all_running.wait();
}

/// Sets the calling thread's scheduling priority to nice 10, the same for every upkeep thread
/// however it was made (a relative step would compound in threads made by upkeep threads). On
/// Linux the nice value is a thread's own, and PRIO_PROCESS with who 0 names the calling thread.
/// A failure leaves the thread as it was: one already nicer (a daemon started under nice) stays
/// so, and otherwise upkeep merely competes as before.
#[cfg(target_os = "linux")]
fn lower_priority() {
    extern "C" {
        fn setpriority(which: i32, who: u32, prio: i32) -> i32;
    }
    const PRIO_PROCESS: i32 = 0;
    unsafe {
        setpriority(PRIO_PROCESS, 0, 10);
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_priority() {}
