#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "guard.h"

// The SQLite functions and constants used, as sqlite3.h declares them.
int sqlite3_db_config(sqlite3 *, int op, ...);
void sqlite3_progress_handler(sqlite3 *, int, int (*)(void *), void *);
int sqlite3_trace_v2(sqlite3 *, unsigned mask, int (*)(unsigned, void *, void *, void *), void *);
sqlite3_stmt *sqlite3_next_stmt(sqlite3 *, sqlite3_stmt *);
int sqlite3_stmt_busy(sqlite3_stmt *);
sqlite3_vfs *sqlite3_vfs_find(const char *);
int sqlite3_vfs_register(sqlite3_vfs *, int makeDflt);
int sqlite3_vfs_unregister(sqlite3_vfs *);

#define SQLITE_OK 0
#define SQLITE_ERROR 1
#define SQLITE_NOMEM 7
#define SQLITE_FULL 13
#define SQLITE_CANTOPEN 14
#define SQLITE_DBCONFIG_DEFENSIVE 1010
#define SQLITE_DBCONFIG_TRUSTED_SCHEMA 1017
#define SQLITE_TRACE_STMT 0x01
#define SQLITE_OPEN_DELETEONCLOSE 0x00000008
#define SQLITE_OPEN_EXCLUSIVE 0x00000010
#define SQLITE_OPEN_TEMP_DB 0x00000200
#define SQLITE_OPEN_TRANSIENT_DB 0x00000400
#define SQLITE_OPEN_TEMP_JOURNAL 0x00001000
#define SQLITE_OPEN_SUBJOURNAL 0x00002000

// How many virtual-machine instructions run between two calls of the progress handler: often
// enough to stop within microseconds, rarely enough to cost nothing measurable.
#define PROGRESS_OPS 1000

static sqlite3_int64 now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (sqlite3_int64)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int guard_progress(void *ctx) {
	pond_guard *g = ctx;
	g->steps += PROGRESS_OPS;
	if (g->budget > 0 && g->steps > g->budget) {
		g->tripped = 1;
		return 1;
	}
	if (g->timeout_ns > 0 && now_ns() > g->deadline) {
		g->tripped = 2;
		return 1;
	}
	return 0;
}

// guard_trace starts the bounds afresh when a top-level statement begins. A statement that
// starts while another of the connection runs (FTS5's own statements, a virtual table's) counts
// toward the one already running, so no inner statement can renew an outer one's budget.
static int guard_trace(unsigned type, void *ctx, void *p, void *x) {
	pond_guard *g = ctx;
	(void)x;
	if (type != SQLITE_TRACE_STMT) {
		return 0;
	}
	for (sqlite3_stmt *s = sqlite3_next_stmt(g->db, 0); s; s = sqlite3_next_stmt(g->db, s)) {
		if (s != (sqlite3_stmt *)p && sqlite3_stmt_busy(s)) {
			return 0;
		}
	}
	g->steps = 0;
	g->deadline = now_ns() + g->timeout_ns;
	return 0;
}

int pond_guard_install(sqlite3 *db, pond_guard *g, int defensive) {
	g->db = db;
	if (defensive) {
		int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
		if (rc == SQLITE_OK) {
			rc = sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
		}
		if (rc != SQLITE_OK) {
			return rc;
		}
	}
	if (g->budget > 0 || g->timeout_ns > 0) {
		int rc = sqlite3_trace_v2(db, SQLITE_TRACE_STMT, guard_trace, g);
		if (rc != SQLITE_OK) {
			return rc;
		}
		g->deadline = now_ns() + g->timeout_ns;
		sqlite3_progress_handler(db, PROGRESS_OPS, guard_progress, g);
	}
	return SQLITE_OK;
}

int pond_db_flag(sqlite3 *db, int op) {
	int v = -1;
	if (sqlite3_db_config(db, op, -1, &v) != SQLITE_OK) {
		return -1;
	}
	return v;
}

struct pond_vfs {
	sqlite3_vfs vfs; // first, so that a sqlite3_vfs* is a pond_vfs*
	sqlite3_vfs *real;
	char *name;
	char *dir;
	sqlite3_int64 cap;
	sqlite3_int64 used; // atomic
	unsigned long long seq; // atomic
};

// tmp_file is a temporary file of a pond_vfs: the bytes it accounts for, its name (the default
// VFS keeps a pointer to it), and the default VFS's own file after it.
typedef struct tmp_file {
	sqlite3_file base;
	pond_vfs *vfs;
	sqlite3_int64 size;
	sqlite3_file *real;
	char name[512];
} tmp_file;

#define REAL(f) (((tmp_file *)(f))->real)

static int tmp_close(sqlite3_file *f) {
	tmp_file *t = (tmp_file *)f;
	__atomic_sub_fetch(&t->vfs->used, t->size, __ATOMIC_RELAXED);
	t->size = 0;
	return t->real->pMethods->xClose(t->real);
}

static int tmp_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off) {
	return REAL(f)->pMethods->xRead(REAL(f), buf, n, off);
}

static int tmp_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off) {
	tmp_file *t = (tmp_file *)f;
	sqlite3_int64 end = off + n;
	if (end > t->size) {
		sqlite3_int64 grow = end - t->size;
		if (__atomic_add_fetch(&t->vfs->used, grow, __ATOMIC_RELAXED) > t->vfs->cap) {
			__atomic_sub_fetch(&t->vfs->used, grow, __ATOMIC_RELAXED);
			return SQLITE_FULL;
		}
		t->size = end;
	}
	return t->real->pMethods->xWrite(t->real, buf, n, off);
}

static int tmp_truncate(sqlite3_file *f, sqlite3_int64 size) {
	tmp_file *t = (tmp_file *)f;
	if (size < t->size) {
		__atomic_sub_fetch(&t->vfs->used, t->size - size, __ATOMIC_RELAXED);
		t->size = size;
	}
	return t->real->pMethods->xTruncate(t->real, size);
}

static int tmp_sync(sqlite3_file *f, int flags) { return REAL(f)->pMethods->xSync(REAL(f), flags); }
static int tmp_size(sqlite3_file *f, sqlite3_int64 *n) { return REAL(f)->pMethods->xFileSize(REAL(f), n); }
static int tmp_lock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xLock(REAL(f), l); }
static int tmp_unlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int tmp_reserved(sqlite3_file *f, int *out) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out); }
static int tmp_control(sqlite3_file *f, int op, void *arg) { return REAL(f)->pMethods->xFileControl(REAL(f), op, arg); }
static int tmp_sector(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int tmp_device(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }

// Version 1: temporary files are private to one connection, so they need no shared memory, and
// without xFetch SQLite never maps them.
static const sqlite3_io_methods tmp_methods = {
	1, tmp_close, tmp_read, tmp_write, tmp_truncate, tmp_sync, tmp_size, tmp_lock, tmp_unlock,
	tmp_reserved, tmp_control, tmp_sector, tmp_device,
};

static int vfs_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out) {
	pond_vfs *v = (pond_vfs *)vfs;
	int temp = SQLITE_OPEN_TEMP_DB | SQLITE_OPEN_TRANSIENT_DB | SQLITE_OPEN_TEMP_JOURNAL | SQLITE_OPEN_SUBJOURNAL;
	if (name != 0 && !(flags & temp)) {
		// Not a temporary file: the default VFS's own, in the space SQLite gave us.
		return v->real->xOpen(v->real, name, f, flags, out);
	}
	tmp_file *t = (tmp_file *)f;
	memset(t, 0, sizeof(*t));
	t->vfs = v;
	t->real = (sqlite3_file *)((char *)f + sizeof(tmp_file));
	unsigned long long n = __atomic_add_fetch(&v->seq, 1, __ATOMIC_RELAXED);
	// Two zero bytes end the name, as SQLite's own temporary names do.
	if (snprintf(t->name, sizeof(t->name) - 1, "%s/pond-sql-%ld-%llu", v->dir, (long)getpid(), n) >= (int)sizeof(t->name) - 2) {
		return SQLITE_CANTOPEN;
	}
	int rc = v->real->xOpen(v->real, t->name, t->real, flags | SQLITE_OPEN_DELETEONCLOSE | SQLITE_OPEN_EXCLUSIVE, out);
	if (rc != SQLITE_OK) {
		return rc;
	}
	t->base.pMethods = &tmp_methods;
	return SQLITE_OK;
}

static int vfs_delete(sqlite3_vfs *vfs, const char *name, int syncDir) {
	sqlite3_vfs *r = ((pond_vfs *)vfs)->real;
	return r->xDelete(r, name, syncDir);
}
static int vfs_access(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
	sqlite3_vfs *r = ((pond_vfs *)vfs)->real;
	return r->xAccess(r, name, flags, out);
}
static int vfs_fullpath(sqlite3_vfs *vfs, const char *name, int n, char *out) {
	sqlite3_vfs *r = ((pond_vfs *)vfs)->real;
	return r->xFullPathname(r, name, n, out);
}
static void *vfs_dlopen(sqlite3_vfs *vfs, const char *name) {
	(void)vfs;
	(void)name;
	return 0; // extensions never load through this VFS
}
static void vfs_dlerror(sqlite3_vfs *vfs, int n, char *msg) {
	(void)vfs;
	if (n > 0) {
		snprintf(msg, n, "extensions are not loaded here");
	}
}
static void (*vfs_dlsym(sqlite3_vfs *vfs, void *h, const char *sym))(void) {
	(void)vfs;
	(void)h;
	(void)sym;
	return 0;
}
static void vfs_dlclose(sqlite3_vfs *vfs, void *h) {
	(void)vfs;
	(void)h;
}
static int vfs_random(sqlite3_vfs *vfs, int n, char *out) {
	sqlite3_vfs *r = ((pond_vfs *)vfs)->real;
	return r->xRandomness(r, n, out);
}
static int vfs_sleep(sqlite3_vfs *vfs, int us) {
	sqlite3_vfs *r = ((pond_vfs *)vfs)->real;
	return r->xSleep(r, us);
}
static int vfs_time(sqlite3_vfs *vfs, double *out) {
	sqlite3_vfs *r = ((pond_vfs *)vfs)->real;
	return r->xCurrentTime(r, out);
}
static int vfs_lasterror(sqlite3_vfs *vfs, int n, char *out) {
	sqlite3_vfs *r = ((pond_vfs *)vfs)->real;
	return r->xGetLastError ? r->xGetLastError(r, n, out) : 0;
}
static int vfs_time64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
	sqlite3_vfs *r = ((pond_vfs *)vfs)->real;
	return r->xCurrentTimeInt64(r, out);
}

pond_vfs *pond_vfs_register(const char *name, const char *dir, sqlite3_int64 cap) {
	sqlite3_vfs *real = sqlite3_vfs_find(0);
	if (real == 0 || real->iVersion < 2) {
		return 0;
	}
	pond_vfs *v = calloc(1, sizeof(*v));
	if (v == 0) {
		return 0;
	}
	v->real = real;
	v->name = strdup(name);
	v->dir = strdup(dir);
	v->cap = cap;
	if (v->name == 0 || v->dir == 0) {
		pond_vfs_unregister(v);
		return 0;
	}
	int sz = real->szOsFile;
	if (sz < (int)sizeof(sqlite3_file)) {
		sz = sizeof(sqlite3_file);
	}
	v->vfs = (sqlite3_vfs){
		.iVersion = 2,
		.szOsFile = (int)sizeof(tmp_file) + sz,
		.mxPathname = real->mxPathname,
		.zName = v->name,
		.pAppData = v,
		.xOpen = vfs_open,
		.xDelete = vfs_delete,
		.xAccess = vfs_access,
		.xFullPathname = vfs_fullpath,
		.xDlOpen = vfs_dlopen,
		.xDlError = vfs_dlerror,
		.xDlSym = vfs_dlsym,
		.xDlClose = vfs_dlclose,
		.xRandomness = vfs_random,
		.xSleep = vfs_sleep,
		.xCurrentTime = vfs_time,
		.xGetLastError = vfs_lasterror,
		.xCurrentTimeInt64 = vfs_time64,
	};
	if (sqlite3_vfs_register(&v->vfs, 0) != SQLITE_OK) {
		free(v->name);
		free(v->dir);
		free(v);
		return 0;
	}
	return v;
}

void pond_vfs_unregister(pond_vfs *v) {
	if (v == 0) {
		return;
	}
	if (v->vfs.zName != 0) {
		sqlite3_vfs_unregister(&v->vfs);
	}
	free(v->name);
	free(v->dir);
	free(v);
}

sqlite3_int64 pond_vfs_used(pond_vfs *v) { return __atomic_load_n(&v->used, __ATOMIC_RELAXED); }
