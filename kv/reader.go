package kv

import "github.com/kvenc/kvenc/kv/internal/segread"

// The Store's reads of its segments are package segread's (s.rd).

// newReader returns the segment reader of s, whose engine, keys and cache
// are set.
func (s *Store) newReader() *segread.Reader {
	return segread.New(segread.Config{
		Engine:    s.eng,
		Keys:      s.keys,
		Prefix:    s.opts.Prefix,
		Cache:     s.cache,
		Pool:      &s.pool,
		BlockSize: s.opts.BlockSize,
		Closing:   s.closed.Load,
		ErrClosed: s.errClosed,
		EngineErr: s.dbClosed,
	})
}
