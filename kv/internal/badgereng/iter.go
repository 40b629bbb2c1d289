package badgereng

import (
	"bytes"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/engine"
)

// iter is a Badger iterator in its own read-only transaction, over keys
// only (PrefetchValues off: kv reads the values it needs one at a time),
// clamped to [lower, upper).
type iter struct {
	txn          *badger.Txn
	it           *badger.Iterator
	lower, upper []byte
	reverse      bool
	valid        bool
}

// NewIter returns an iterator over [o.Lower, o.Upper). Badger narrows its
// search to the tables that may hold a prefix: the iterator gives it the
// longest prefix every key in the bounds shares.
func (e *Engine) NewIter(o engine.IterOptions) (_ engine.Iter, err error) {
	txn, err := begin(e.db, false)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			txn.Discard()
		}
	}()
	defer catchClosed(&err)
	bo := badger.IteratorOptions{Reverse: o.Reverse, Prefix: boundsPrefix(o.Lower, o.Upper)}
	return &iter{txn: txn, it: txn.NewIterator(bo), lower: o.Lower, upper: o.Upper, reverse: o.Reverse}, nil
}

// boundsPrefix returns the longest prefix of every key in [lower, upper):
// lower itself when upper is the end of its prefix (engine.PrefixEnd), else
// what lower and upper share (Badger's Prefix option).
func boundsPrefix(lower, upper []byte) []byte {
	if lower == nil || upper == nil {
		return nil
	}
	if bytes.Equal(engine.PrefixEnd(lower), upper) {
		return lower
	}
	n := 0
	for n < len(lower) && n < len(upper) && lower[n] == upper[n] {
		n++
	}
	return lower[:n]
}

// settle checks the key Badger is on against the bounds.
func (i *iter) settle() bool {
	i.valid = false
	if !i.it.Valid() {
		return false
	}
	k := i.it.Item().Key()
	if i.reverse {
		if i.lower != nil && bytes.Compare(k, i.lower) < 0 {
			return false
		}
	} else if i.upper != nil && bytes.Compare(k, i.upper) >= 0 {
		return false
	}
	i.valid = true
	return true
}

func (i *iter) First() bool {
	if !i.reverse {
		if i.lower == nil {
			i.it.Rewind()
			return i.settle()
		}
		return i.Seek(i.lower)
	}
	if i.upper == nil {
		// With a Prefix, Badger's reverse Rewind seeks to the bare prefix
		// and finds nothing: no prefix is set without an upper bound.
		i.it.Rewind()
		return i.settle()
	}
	i.it.Seek(i.upper)
	if i.it.Valid() && bytes.Equal(i.it.Item().Key(), i.upper) {
		i.it.Next()
	}
	return i.settle()
}

func (i *iter) Seek(key []byte) bool {
	if !i.reverse && i.lower != nil && bytes.Compare(key, i.lower) < 0 {
		key = i.lower
	}
	if i.reverse && i.upper != nil && bytes.Compare(key, i.upper) >= 0 {
		return i.First()
	}
	i.it.Seek(key)
	return i.settle()
}

func (i *iter) Next() bool {
	if !i.valid {
		return false
	}
	i.it.Next()
	return i.settle()
}

func (i *iter) Valid() bool { return i.valid }

func (i *iter) Key() []byte { return i.it.Item().Key() }

func (i *iter) Value(v engine.Viewer) error { return i.it.Item().Value(v.View) }

func (i *iter) Err() error { return nil }

// Close ends the iterator and its transaction. After the DB closed under
// it, Badger's Close would block: then it does nothing (a closed DB keeps
// nothing for it).
func (i *iter) Close() error {
	if i.it == nil {
		return nil
	}
	i.it.Close()
	i.txn.Discard()
	i.it = nil
	return nil
}
