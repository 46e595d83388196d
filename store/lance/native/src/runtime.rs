//! The tokio runtime our calls block on. Separate from lancedb-go's own runtime so that a slow
//! optimize here never starves its calls, and sized for small machines.

use std::future::Future;
use std::sync::OnceLock;
use tokio::runtime::Runtime;

static RUNTIME: OnceLock<Runtime> = OnceLock::new();

pub fn block_on<F: Future>(f: F) -> F::Output {
    RUNTIME
        .get_or_init(|| {
            let workers = std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2)
                .clamp(2, 8);
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(workers)
                .thread_name("pond-native")
                .enable_all()
                .build()
                .expect("pond-native: cannot start the tokio runtime")
        })
        .block_on(f)
}
