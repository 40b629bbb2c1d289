package kv

import "time"

// Stats describe a Store at one moment.
type Stats struct {
	Segments    int   // live segments
	Blocks      int   // blocks in live segments
	BytesStored int64 // bytes of the live segments' blocks, metas, dictionaries and key filters in the engine
	Cells       int64 // cells (versions and tombstones) in live segments
	RangeDels   int64 // range tombstones in live segments and memstores
	Memstores   int   // memstores (the active one and the frozen ones)
	MemCells    int64 // cells added to the memstores
	MemBytes    int64 // arena bytes in use in the memstores
	CacheBytes  int64 // bytes of blocks in the block cache
	CacheHits   int64 // block lookups served by the cache
	CacheMisses int64 // block lookups read from Badger
	Flushes     int64 // memstores flushed since Open
	Compactions int64 // compactions since Open
	WALBytes    int64 // bytes written to WAL files since Open (Open on a directory)
	// WALWrites counts the writes to WAL files since Open, each fsynced
	// with SyncWrites; writes from several goroutines at once share one
	// (group commit), so Applies / WALWrites is the average group.
	WALWrites int64
	Snapshots int // pinned read points (snapshots and iterators)
	// WriteStalls counts the writes held back since Open until a flush
	// took a frozen memstore off (see the package doc, Write stalls),
	// WriteStallTime the time they waited in all.
	WriteStalls    int64
	WriteStallTime time.Duration
	// Yields counts the reads and writes that gave up their processor to
	// other goroutines since Open (see Many goroutines in the package
	// doc).
	Yields int64
	// BufsOut is the number of pooled block buffers not yet released:
	// 0 when no compaction runs.
	BufsOut int64
	// FreeBytes is the free space of the Store's filesystem (0 when the
	// Store does not check it: in memory, OpenEngine, a negative
	// Options.Reserve), ReservedBytes the part of it that writes leave
	// (Options.Reserve).
	FreeBytes     int64
	ReservedBytes int64
	// BackgroundErr is the error of the last background flush,
	// compaction or cleanup run, or nil if it succeeded.
	BackgroundErr error
}

// Stats returns the Store's statistics.
func (s *Store) Stats() Stats {
	var st Stats
	s.mu.RLock()
	st.Segments = len(s.segs)
	for _, g := range s.segs {
		st.Blocks += int(g.Meta.Blocks)
		st.Cells += int64(g.Meta.Cells)
		st.RangeDels += int64(len(g.Meta.Dels))
		st.BytesStored += g.Meta.StoredBytes()
	}
	for _, mt := range append(s.frozen, s.active) {
		st.Memstores++
		st.MemCells += int64(mt.ms.Len())
		st.MemBytes += mt.ms.Size()
		st.RangeDels += int64(mt.dels.Load().Len())
	}
	s.mu.RUnlock()
	st.CacheBytes, st.CacheHits, st.CacheMisses = s.cache.Stats()
	st.Flushes = s.flushes.Load()
	st.Compactions = s.compactions.Load()
	st.WriteStalls, st.WriteStallTime = s.stalls.Load(), time.Duration(s.stallTime.Load())
	st.Yields = s.yields.Load()
	if s.wal != nil {
		st.WALBytes, st.WALWrites = s.wal.Written(), s.wal.Writes()
	}
	s.snapMu.Lock()
	for _, n := range s.snaps {
		st.Snapshots += n
	}
	s.snapMu.Unlock()
	st.BufsOut = s.pool.Out()
	s.spaceStats(&st)
	s.errMu.Lock()
	st.BackgroundErr = s.bgErr
	s.errMu.Unlock()
	return st
}
