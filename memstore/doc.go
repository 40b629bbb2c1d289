// Package memstore is kvenc's write buffer: a concurrent sorted set of
// blockenc.Cells in one fixed-size arena, read at an MVCC read point.
//
// # Structure
//
// A Memstore wraps Badger's lock-free arena skiplist
// (github.com/dgraph-io/badger/v4/skl). Each cell is one skiplist node:
//
//	skiplist key   = cell key | ^seq (8 bytes, big endian)        (y.KeyWithTs)
//	skiplist value = meta u8 (0x80 | kind) | user meta u8 (0) | expires-at uvarint (0) | value
//
// skl compares keys with y.CompareKeys: the user key with bytes.Compare,
// then the 8-byte suffix, which holds MaxUint64-seq so that a higher seq
// sorts first. That is exactly blockenc.Compare's order (key ascending, seq
// descending), so the skiplist order is the cell order. The high meta bit
// tells a stored cell from skl's empty "not found" answer, since
// blockenc.KindDelete is 0.
//
// # Reads at a read point
//
// Seeking to KeyWithTs(key, readPoint) lands on the newest version of key
// with Seq <= readPoint (versions above the read point sort before it),
// or on a later key when key has no such version. Get and the iterators use
// that one seek; an iterator that meets a version above its read point seeks
// past the newer versions the same way.
//
// skl links its nodes forward only. An iterator moving backward searches the
// skiplist for the node before the current one (or for the last node below
// a key with its smallest suffix: the oldest version of the previous key);
// when that oldest version is above the read point, so are the key's newer
// ones and the key is skipped. At a read point it also looks one node
// further back: a node of another key (or above the read point) means the
// node in hand is the version to show, and the node found is where the
// next backward step starts; a newer visible version of the same key means
// one more seek, to the key at the read point. A backward step therefore
// costs one O(log n) search per key of one visible version (two for a key
// of several) where a forward step follows one link.
//
// # Arena and ErrFull
//
// skl ends the whole process when its arena overflows. Add therefore reserves, before
// it touches the skiplist, an upper bound of the arena bytes the cell can
// take (CellArenaBound: a node of maximum height with alignment padding, the
// key plus its 8-byte suffix, the value plus its 3-byte header) and refuses
// the cell with ErrFull when the arena could overflow. Reservations of Adds
// still running count against the arena until they finish, so with many
// concurrent writers ErrFull can come a few hundred bytes early; it never
// comes late, and the process never exits.
//
// A caller that adds a batch of cells at once reserves their bounds
// together (Reserve), adds them with AddReserved, which does not check the
// arena again, and releases the reservation (Release). A batch admitted so
// never meets ErrFull halfway: a second check per cell could refuse, since
// reservations in flight are counted high for a moment, a cell whose room
// the batch's reservation holds.
//
// # Slices and lifetime
//
// Add copies the cell into the arena. The Key and Value of a Cell returned by
// Get or Iterator.Cell alias the arena; arena memory is never reused or
// changed while the Memstore lives, so the caller may keep them as long as it
// keeps the Memstore (and must not write into them). They are capacity-limited,
// so an append by the caller copies instead of overwriting the arena.
//
// # Same key and seq twice
//
// A second Add of a cell with the same Key and Seq replaces the first one's
// kind and value (the last Add wins, as a put of an equal key in HBase's
// CellSet does). Readers that already hold the old value keep it unchanged.
// Len counts the second Add too: it counts Adds, because skl does not report
// a replacement and a lookup per Add to find out costs 35-45% of Add. In
// kvenc such a pair happens only inside one batch, whose seq is above every
// reader's read point until the batch completes, so no reader can see the
// replacement happen.
//
// All methods are safe for concurrent use; an Iterator is used by one
// goroutine at a time.
package memstore
