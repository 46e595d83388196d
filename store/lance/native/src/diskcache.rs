//! A bounded cache on local disk for the files of an archive on an object store.
//!
//! Lance never changes a file once written: a table version's manifest, an index's files, a
//! deletion file, a transaction file and a data file keep their bytes until a cleanup deletes
//! them; only the listing of `_versions/` says which version is the latest. So those files can
//! be kept on local disk and served from there without asking the store again, while listings,
//! writes and conditional reads always go to the store. A daemon whose archive lives on S3 then
//! reads its manifests and vector index over the network once, not after every restart.
//!
//! The cache wraps the object store Lance's S3 provider makes (`CachingProvider`), so it sees
//! every read Lance makes through this library's connections. A miss passes the read through
//! and then keeps the whole file when it is small enough (`max_file`); the files used least
//! recently leave when the folder would grow past its limit. Any local error falls back to the
//! store: the cache can make a read slower, never wrong or failed.

use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use bytes::Bytes;
use futures::stream::{BoxStream, StreamExt};
use lance_io::object_store::{ObjectStore as LanceStore, ObjectStoreParams, ObjectStoreProvider};
use object_store::path::Path;
use object_store::{
    Attributes, GetOptions, GetResult, GetResultPayload, ListResult, MultipartUpload, ObjectMeta,
    ObjectStore, PutMultipartOptions, PutOptions, PutPayload, PutResult,
};
use serde::Serialize;
use url::Url;

/// What the cache has done since the database was opened, and what it holds.
#[derive(Serialize, Default, Clone, Copy)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    /// Reads the cache may not answer: listings' targets, conditional or versioned reads.
    pub bypassed: u64,
    pub stored: u64,
    pub evicted: u64,
    /// Local failures (a full disk, a file removed by hand); each fell back to the store.
    pub errors: u64,
    pub files: u64,
    pub bytes: u64,
    pub limit_bytes: u64,
}

/// One cache folder, shared by every store a database's connection opens.
pub struct Cache {
    dir: PathBuf,
    limit: u64,
    max_file: u64,
    index: Mutex<Index>,
    hits: AtomicU64,
    misses: AtomicU64,
    bypassed: AtomicU64,
    stored: AtomicU64,
    evicted: AtomicU64,
    errors: AtomicU64,
    tmp_seq: AtomicU64,
    /// Files being written in the background, and the signal that one finished.
    writing: Mutex<u64>,
    written: Condvar,
}

/// The files held: name → (size, last use on a logical clock), and their total size.
#[derive(Default)]
struct Index {
    files: HashMap<String, (u64, u64)>,
    total: u64,
    clock: u64,
}

impl fmt::Debug for Cache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DiskCache({}, {} bytes)", self.dir.display(), self.limit)
    }
}

impl Cache {
    /// Opens the folder (made private when missing), forgets what an interrupted write left and
    /// orders what is there by its files' modification times, the oldest first to leave.
    pub fn open(dir: PathBuf, limit: u64) -> std::io::Result<Cache> {
        fs::create_dir_all(&dir)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))?;
        }
        let mut found = Vec::new();
        for entry in fs::read_dir(&dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let meta = entry.metadata()?;
            if !meta.is_file() {
                continue;
            }
            let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            match parse_file_name(&name) {
                Some((key, size)) if size == meta.len() => found.push((used, key, size)),
                // Cut short behind our back: of no use.
                Some(_) => {
                    let _ = fs::remove_file(entry.path());
                }
                // What an interrupted write left (another process sharing the folder may be
                // writing one now: only old ones go).
                None if name.contains(".tmp-") && used.elapsed().is_ok_and(|d| d.as_secs() > 600) => {
                    let _ = fs::remove_file(entry.path());
                }
                None => {}
            }
        }
        found.sort();
        let mut index = Index::default();
        for (_, name, size) in found {
            index.clock += 1;
            index.total += size;
            index.files.insert(name, (size, index.clock));
        }
        let cache = Cache {
            dir,
            limit,
            // One file may take an eighth of the cache, so a large data file never empties it.
            max_file: limit / 8,
            index: Mutex::new(index),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            bypassed: AtomicU64::new(0),
            stored: AtomicU64::new(0),
            evicted: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            tmp_seq: AtomicU64::new(0),
            writing: Mutex::new(0),
            written: Condvar::new(),
        };
        let removed = cache.evict_to(cache.limit);
        cache.evicted.fetch_add(removed, Ordering::Relaxed);
        Ok(cache)
    }

    pub fn stats(&self) -> CacheStats {
        let index = self.index.lock().unwrap();
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            bypassed: self.bypassed.load(Ordering::Relaxed),
            stored: self.stored.load(Ordering::Relaxed),
            evicted: self.evicted.load(Ordering::Relaxed),
            errors: self.errors.load(Ordering::Relaxed),
            files: index.files.len() as u64,
            bytes: index.total,
            limit_bytes: self.limit,
        }
    }

    /// Marks name used and returns its size, when held.
    fn touch(&self, name: &str) -> Option<u64> {
        let mut index = self.index.lock().unwrap();
        index.clock += 1;
        let clock = index.clock;
        index.files.get_mut(name).map(|e| {
            e.1 = clock;
            e.0
        })
    }

    /// The file holding the object keyed name, whose size is size.
    fn file(&self, name: &str, size: u64) -> PathBuf {
        self.dir.join(format!("{name}-{size}"))
    }

    /// Reads range of a held file (nothing of it for a head request, which wants its size);
    /// None when it is not (or no longer) there.
    fn read(&self, name: &str, range: Option<&object_store::GetRange>, head: bool) -> Option<(Bytes, Range<u64>, u64, SystemTime)> {
        let size = self.touch(name)?;
        let result = (|| -> std::io::Result<_> {
            let mut f = fs::File::open(self.file(name, size))?;
            let meta = f.metadata()?;
            let len = meta.len();
            if len != size {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "cached file changed size"));
            }
            let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            if head {
                return Ok((Bytes::new(), 0..0, len, modified));
            }
            let r = match range {
                None => 0..len,
                Some(r) => r
                    .as_range(len)
                    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?,
            };
            f.seek(SeekFrom::Start(r.start))?;
            let mut buf = vec![0u8; (r.end - r.start) as usize];
            f.read_exact(&mut buf)?;
            Ok((Bytes::from(buf), r, len, modified))
        })();
        match result {
            Ok(v) => Some(v),
            Err(_) => {
                // Removed or cut short behind our back, or a range the file does not have:
                // forget it and let the store answer.
                self.errors.fetch_add(1, Ordering::Relaxed);
                self.forget(name);
                None
            }
        }
    }

    /// Keeps bytes as name: written beside, synced, then renamed into place, so a file in the
    /// folder is always whole.
    fn store(&self, name: &str, bytes: &[u8]) {
        let size = bytes.len() as u64;
        if size > self.max_file {
            return;
        }
        let tmp = self.dir.join(format!(
            "{name}.tmp-{}-{}",
            std::process::id(),
            self.tmp_seq.fetch_add(1, Ordering::Relaxed)
        ));
        let written = (|| -> std::io::Result<()> {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
            fs::rename(&tmp, self.file(name, size))
        })();
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
            self.errors.fetch_add(1, Ordering::Relaxed);
            return;
        }
        self.stored.fetch_add(1, Ordering::Relaxed);
        {
            let mut index = self.index.lock().unwrap();
            index.clock += 1;
            let clock = index.clock;
            if let Some((old, _)) = index.files.insert(name.to_string(), (size, clock)) {
                index.total -= old;
                if old != size {
                    let _ = fs::remove_file(self.file(name, old));
                }
            }
            index.total += size;
        }
        let removed = self.evict_to(self.limit);
        self.evicted.fetch_add(removed, Ordering::Relaxed);
    }

    /// Keeps bytes as name on a blocking thread, so that the read that fetched them returns
    /// without waiting for the disk.
    fn store_later(self: &Arc<Self>, name: String, bytes: Bytes) {
        *self.writing.lock().unwrap() += 1;
        // Counted down when the write is done, or when a runtime shutting down drops it unrun.
        let pending = Pending(self.clone());
        tokio::task::spawn_blocking(move || pending.0.store(&name, &bytes));
    }

    /// Waits for the background writes to finish (when the database closes, so that the next
    /// process to open the folder finds them), for a minute at most.
    pub fn drain(&self) {
        let writing = self.writing.lock().unwrap();
        let _ = self.written.wait_timeout_while(writing, Duration::from_secs(60), |n| *n > 0);
    }

    /// Removes the least recently used files until the folder holds at most limit bytes.
    fn evict_to(&self, limit: u64) -> u64 {
        let mut removed = 0;
        let mut index = self.index.lock().unwrap();
        while index.total > limit {
            let Some(name) = index.files.iter().min_by_key(|(_, e)| e.1).map(|(n, _)| n.clone()) else {
                break;
            };
            let (size, _) = index.files.remove(&name).unwrap();
            index.total -= size;
            // An open reader keeps its file until it is done with it.
            let _ = fs::remove_file(self.file(&name, size));
            removed += 1;
        }
        removed
    }

    /// Drops name from the folder (the store deleted or replaced the file).
    fn forget(&self, name: &str) {
        let mut index = self.index.lock().unwrap();
        if let Some((size, _)) = index.files.remove(name) {
            index.total -= size;
            let _ = fs::remove_file(self.file(name, size));
        }
    }
}

/// One background write in flight.
struct Pending(Arc<Cache>);

impl Drop for Pending {
    fn drop(&mut self) {
        *self.0.writing.lock().unwrap() -= 1;
        self.0.written.notify_all();
    }
}

/// The cache's file name for an object: a 128-bit hash of its path (two FNV-1a passes with
/// different offsets), hex. The folder is per archive, so paths are unique within it.
fn entry_name(location: &Path) -> String {
    let fnv = |offset: u64| {
        location.as_ref().bytes().fold(offset, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3))
    };
    format!("{:016x}{:016x}", fnv(0xcbf29ce484222325), fnv(0x6c62272e07bb0142))
}

/// The key and size a cache file's name records (`<key>-<size>`).
fn parse_file_name(name: &str) -> Option<(String, u64)> {
    let (key, size) = name.split_once('-')?;
    if key.len() != 32 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some((key.to_string(), size.parse().ok()?))
}

/// Whether Lance never rewrites the file at location: a version's manifest (not the legacy
/// `_latest.manifest` pointer, nor a temporary file a commit renames), an index file, a
/// deletion or transaction file, or a data file.
fn immutable(location: &Path) -> bool {
    let parts: Vec<_> = location.parts().collect();
    let Some(name) = parts.last().map(|p| p.as_ref().to_string()) else {
        return false;
    };
    if name.starts_with('.') || name.contains("tmp") || name == "_latest.manifest" {
        return false;
    }
    let under = |dir: &str| parts.iter().rev().skip(1).any(|p| p.as_ref() == dir);
    (under("_versions") && name.ends_with(".manifest"))
        || under("_indices")
        || under("_deletions")
        || under("_transactions")
        || (under("data") && name.ends_with(".lance"))
}

/// Whether location is a table version's manifest, a deletion file or a transaction file: small
/// files, each read whole.
fn small_kind(location: &Path) -> bool {
    location
        .parts()
        .any(|p| matches!(p.as_ref(), "_versions" | "_deletions" | "_transactions"))
}

/// A plain read: no condition, no object version, so any copy of the file answers it.
fn plain(o: &GetOptions) -> bool {
    o.if_match.is_none()
        && o.if_none_match.is_none()
        && o.if_modified_since.is_none()
        && o.if_unmodified_since.is_none()
        && o.version.is_none()
}

fn result(location: &Path, bytes: Bytes, range: Range<u64>, size: u64, modified: SystemTime) -> GetResult {
    GetResult {
        payload: GetResultPayload::Stream(futures::stream::once(async move { Ok(bytes) }).boxed()),
        meta: ObjectMeta {
            location: location.clone(),
            last_modified: modified.into(),
            size,
            e_tag: None,
            version: None,
        },
        range,
        attributes: Attributes::default(),
    }
}

/// An object store that answers reads of immutable files from the cache.
#[derive(Debug)]
pub struct CachedStore {
    inner: Arc<dyn ObjectStore>,
    cache: Arc<Cache>,
}

impl fmt::Display for CachedStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DiskCache({})", self.inner)
    }
}

impl CachedStore {
    async fn cached_get(&self, location: &Path, options: GetOptions) -> object_store::Result<GetResult> {
        let name = entry_name(location);
        let cache = self.cache.clone();
        let (n, want, head) = (name.clone(), options.range.clone(), options.head);
        let hit = tokio::task::spawn_blocking(move || cache.read(&n, want.as_ref(), head))
            .await
            .ok()
            .flatten();
        if let Some((bytes, range, size, modified)) = hit {
            self.cache.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(result(location, bytes, range, size, modified));
        }
        self.cache.misses.fetch_add(1, Ordering::Relaxed);
        if options.head {
            return self.inner.get_opts(location, options).await;
        }
        if let (Some(want), true) = (options.range.clone(), small_kind(location)) {
            // A manifest, deletion or transaction file is small and read whole soon after a
            // first range of it: one request for all of it rather than two.
            let got = self.inner.get(location).await?;
            let (meta, attributes) = (got.meta.clone(), got.attributes.clone());
            let file = got.bytes().await?;
            if let Ok(range) = want.as_range(meta.size) {
                let part = file.slice(range.start as usize..range.end as usize);
                if meta.size <= self.cache.max_file {
                    self.cache.store_later(name, file);
                }
                return Ok(GetResult {
                    payload: GetResultPayload::Stream(futures::stream::once(async move { Ok(part) }).boxed()),
                    meta,
                    range,
                    attributes,
                });
            }
            // A range the file does not have: the store's own answer says so.
        }
        let whole = options.range.is_none();
        let got = self.inner.get_opts(location, options).await?;
        let (meta, range, attributes) = (got.meta.clone(), got.range.clone(), got.attributes.clone());
        let bytes = got.bytes().await?;
        if meta.size <= self.cache.max_file {
            // A range of a small file: fetch it whole once, so that the next reads stay local.
            let file = if whole {
                Some(bytes.clone())
            } else {
                match self.inner.get(location).await {
                    Ok(g) => g.bytes().await.ok(),
                    Err(_) => None,
                }
            };
            if let Some(file) = file {
                self.cache.store_later(name, file);
            }
        }
        Ok(GetResult {
            payload: GetResultPayload::Stream(futures::stream::once(async move { Ok(bytes) }).boxed()),
            meta,
            range,
            attributes,
        })
    }

    fn forget(&self, location: &Path) {
        self.cache.forget(&entry_name(location));
    }
}

#[async_trait]
impl ObjectStore for CachedStore {
    async fn put_opts(&self, location: &Path, payload: PutPayload, opts: PutOptions) -> object_store::Result<PutResult> {
        self.forget(location);
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.forget(location);
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> object_store::Result<GetResult> {
        if !immutable(location) || !plain(&options) {
            self.cache.bypassed.fetch_add(1, Ordering::Relaxed);
            return self.inner.get_opts(location, options).await;
        }
        self.cached_get(location, options).await
    }

    async fn delete(&self, location: &Path) -> object_store::Result<()> {
        self.forget(location);
        self.inner.delete(location).await
    }

    fn delete_stream<'a>(
        &'a self,
        locations: BoxStream<'a, object_store::Result<Path>>,
    ) -> BoxStream<'a, object_store::Result<Path>> {
        // The store's own batched delete; each path it reports deleted leaves the cache too.
        let cache = self.cache.clone();
        self.inner
            .delete_stream(locations)
            .map(move |r| {
                if let Ok(p) = &r {
                    cache.forget(&entry_name(p));
                }
                r
            })
            .boxed()
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    fn list_with_offset(
        &self,
        prefix: Option<&Path>,
        offset: &Path,
    ) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list_with_offset(prefix, offset)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy(&self, from: &Path, to: &Path) -> object_store::Result<()> {
        self.forget(to);
        self.inner.copy(from, to).await
    }

    async fn rename(&self, from: &Path, to: &Path) -> object_store::Result<()> {
        self.forget(from);
        self.forget(to);
        self.inner.rename(from, to).await
    }

    async fn copy_if_not_exists(&self, from: &Path, to: &Path) -> object_store::Result<()> {
        self.inner.copy_if_not_exists(from, to).await
    }

    async fn rename_if_not_exists(&self, from: &Path, to: &Path) -> object_store::Result<()> {
        self.forget(from);
        self.inner.rename_if_not_exists(from, to).await
    }
}

/// Makes the stores of another provider (Lance's S3 provider) and puts the cache in front of
/// each. Registered for the `s3` scheme in the session of a database opened with a cache.
#[derive(Debug)]
pub struct CachingProvider {
    pub inner: Arc<dyn ObjectStoreProvider>,
    pub cache: Arc<Cache>,
}

#[async_trait]
impl ObjectStoreProvider for CachingProvider {
    async fn new_store(&self, base_path: Url, params: &ObjectStoreParams) -> lance_core::Result<LanceStore> {
        let mut store = self.inner.new_store(base_path, params).await?;
        store.inner = Arc::new(CachedStore { inner: store.inner.clone(), cache: self.cache.clone() });
        Ok(store)
    }

    fn extract_path(&self, url: &Url) -> lance_core::Result<Path> {
        self.inner.extract_path(url)
    }

    fn cache_url(&self, url: &Url) -> String {
        self.inner.cache_url(url)
    }
}
