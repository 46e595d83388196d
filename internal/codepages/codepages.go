// Package codepages gives back the memory a long-lived process's own program takes once a
// rarely run phase has touched its code: Pond's binary holds Lance's, DataFusion's and
// SQLite's code (over 200 MB of text), and the daemon's upkeep (compaction, index builds)
// pulls tens of megabytes of it into memory that its idle hours never use again.
package codepages
