// Package store keeps the archive: the Lance tables (store/lance, the only Go code that touches
// the native library), the SQLite mirror and its read-only SQL gate (store/sqlite), the
// convergent batch writer, the store lock and the search planner.
package store
