// Bounds on the statements of one SQLite connection, and a VFS that confines temporary files to
// a private directory under a size cap. SQLite itself is compiled into the binary by
// go-sqlite3; the few parts of its C API used here are declared below exactly as sqlite3.h
// declares them (a stable ABI), so that this package needs no copy of that header.
#ifndef POND_GUARD_H
#define POND_GUARD_H

typedef long long sqlite3_int64;
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
typedef struct sqlite3_file sqlite3_file;
typedef struct sqlite3_io_methods sqlite3_io_methods;
typedef struct sqlite3_vfs sqlite3_vfs;
typedef void (*sqlite3_syscall_ptr)(void);

struct sqlite3_file {
	const struct sqlite3_io_methods *pMethods;
};

struct sqlite3_io_methods {
	int iVersion;
	int (*xClose)(sqlite3_file *);
	int (*xRead)(sqlite3_file *, void *, int iAmt, sqlite3_int64 iOfst);
	int (*xWrite)(sqlite3_file *, const void *, int iAmt, sqlite3_int64 iOfst);
	int (*xTruncate)(sqlite3_file *, sqlite3_int64 size);
	int (*xSync)(sqlite3_file *, int flags);
	int (*xFileSize)(sqlite3_file *, sqlite3_int64 *pSize);
	int (*xLock)(sqlite3_file *, int);
	int (*xUnlock)(sqlite3_file *, int);
	int (*xCheckReservedLock)(sqlite3_file *, int *pResOut);
	int (*xFileControl)(sqlite3_file *, int op, void *pArg);
	int (*xSectorSize)(sqlite3_file *);
	int (*xDeviceCharacteristics)(sqlite3_file *);
	int (*xShmMap)(sqlite3_file *, int iPg, int pgsz, int, void volatile **);
	int (*xShmLock)(sqlite3_file *, int offset, int n, int flags);
	void (*xShmBarrier)(sqlite3_file *);
	int (*xShmUnmap)(sqlite3_file *, int deleteFlag);
	int (*xFetch)(sqlite3_file *, sqlite3_int64 iOfst, int iAmt, void **pp);
	int (*xUnfetch)(sqlite3_file *, sqlite3_int64 iOfst, void *p);
};

struct sqlite3_vfs {
	int iVersion;
	int szOsFile;
	int mxPathname;
	sqlite3_vfs *pNext;
	const char *zName;
	void *pAppData;
	int (*xOpen)(sqlite3_vfs *, const char *zName, sqlite3_file *, int flags, int *pOutFlags);
	int (*xDelete)(sqlite3_vfs *, const char *zName, int syncDir);
	int (*xAccess)(sqlite3_vfs *, const char *zName, int flags, int *pResOut);
	int (*xFullPathname)(sqlite3_vfs *, const char *zName, int nOut, char *zOut);
	void *(*xDlOpen)(sqlite3_vfs *, const char *zFilename);
	void (*xDlError)(sqlite3_vfs *, int nByte, char *zErrMsg);
	void (*(*xDlSym)(sqlite3_vfs *, void *, const char *zSymbol))(void);
	void (*xDlClose)(sqlite3_vfs *, void *);
	int (*xRandomness)(sqlite3_vfs *, int nByte, char *zOut);
	int (*xSleep)(sqlite3_vfs *, int microseconds);
	int (*xCurrentTime)(sqlite3_vfs *, double *);
	int (*xGetLastError)(sqlite3_vfs *, int, char *);
	int (*xCurrentTimeInt64)(sqlite3_vfs *, sqlite3_int64 *);
	int (*xSetSystemCall)(sqlite3_vfs *, const char *zName, sqlite3_syscall_ptr);
	sqlite3_syscall_ptr (*xGetSystemCall)(sqlite3_vfs *, const char *zName);
	const char *(*xNextSystemCall)(sqlite3_vfs *, const char *zName);
};

// pond_guard bounds every top-level statement of one connection: at most budget virtual-machine
// steps and timeout_ns nanoseconds of wall time from its first step (0: no bound). tripped
// says which bound stopped the last statement that was stopped (1 steps, 2 time).
typedef struct pond_guard {
	sqlite3 *db;
	sqlite3_int64 budget;
	sqlite3_int64 timeout_ns;
	sqlite3_int64 steps;
	sqlite3_int64 deadline;
	int tripped;
} pond_guard;

// pond_guard_install sets up g on db: defensive mode and trusted_schema off (with defensive
// non-zero), then the step and time bounds. It returns an SQLite result code.
int pond_guard_install(sqlite3 *db, pond_guard *g, int defensive);

// pond_db_flag reads one boolean SQLITE_DBCONFIG_* setting of db (-1 on error).
int pond_db_flag(sqlite3 *db, int op);

// pond_vfs is a VFS over the default one whose temporary files (sorters, temporary tables,
// sub-journals) live in dir and together hold at most cap bytes: a write past the cap fails with
// SQLITE_FULL.
typedef struct pond_vfs pond_vfs;

// pond_vfs_register registers a VFS called name; NULL when the default VFS is missing or
// memory is short.
pond_vfs *pond_vfs_register(const char *name, const char *dir, sqlite3_int64 cap);

// pond_vfs_unregister unregisters and frees v; no connection may still use it.
void pond_vfs_unregister(pond_vfs *v);

// pond_vfs_used is the bytes v's temporary files hold now.
sqlite3_int64 pond_vfs_used(pond_vfs *v);

#endif
