// Package mvcc hands out sequence numbers to writes and tracks the read point
// that readers may see, with the semantics of HBase's
// MultiVersionConcurrencyControl.
//
// Every write (or batch of writes) calls Begin and gets the next sequence
// number; all cells of one batch share that number. Writes may Complete in
// any order, but the read point advances only over the longest prefix of
// completed writes:
//
//	Begin -> 11   Begin -> 12   Begin -> 13
//	Complete(12)                              read point 10 (11 still open)
//	Complete(11)                              read point 12
//	Complete(13)                              read point 13
//
// so a reader at the read point never sees a later write without every
// earlier one. CompleteAndWait completes a write and blocks (without spinning)
// until the read point has reached it: a writer that returns from it knows
// that every reader that starts afterwards sees its write.
//
// A Snapshot pins the read point at the moment it is taken; OldestSnapshot is
// the smallest pinned read point (or the current read point when nothing is
// pinned). Versions older than the newest version at or below OldestSnapshot
// are invisible to every reader, present and future: flush and compaction may
// drop them.
//
// All methods are safe for concurrent use.
package mvcc
