// Package memstore is kvenc's write buffer: a concurrent sorted set of
// blockenc.Cells in one fixed-size arena, read at an MVCC read point.
//
// # Structure
//
// A Memstore is a lock-free skiplist in one arena allocated at New (the
// design of Badger's skl and Pebble's arenaskl, without deletion). Nodes
// are addressed by uint32 offsets into the arena; offset 0 is nil and the
// head node follows it. A node, 8-byte aligned:
//
//	value  u64         value region offset << 32 | value length (atomic)
//	seq    u64
//	klen   u16
//	height u16         1..20; each level above the first with probability 1/4
//	tower  u32 * height  the next node at each level (atomic)
//	key    klen bytes
//	kind   u8          the value region: the cell's blockenc.Kind,
//	value  bytes       then its value
//
// Nodes are in cell order: key ascending (bytes.Compare), then seq
// descending, which is blockenc.Compare's order. For example the cells
// "a"@5 (Put "x"), "a"@3 (Delete) and "b"@4 (Put "") sit in that order at
// level 0; a node of "a"@5 of height 2 takes 8+8+2+2+2*4 = 28 bytes, then
// "a", then 0x01 'x': 31 bytes, 32 with the padding to the next node.
//
// An insert finds, at every level, the nodes the new one goes between (its
// splice), writes the whole node, then links it with a compare-and-swap
// level by level from the lowest: linked at level 0 it is in the list, and
// a search meets it at a higher level only after that. A failed swap (an
// insert between the same two nodes) searches that level again from the
// node before. An Inserter keeps the splices of its last insert: a cell
// that sorts right after the last one (a batch in key order, a time
// series) is linked from them without a search from the top, in
// constant time.
//
// On Linux New asks for transparent huge pages for the arena (madvise
// MADV_HUGEPAGE, a hint honoured when the kernel's transparent_hugepage
// setting is "always" or "madvise"): a fresh arena is written once from
// start to end, and with 4 KiB pages every page of it faults on first
// touch where a huge page faults once per 2 MiB.
//
// # Reads at a read point
//
// Seeking to KeyWithTs(key, readPoint) lands on the newest version of key
// with Seq <= readPoint (versions above the read point sort before it),
// or on a later key when key has no such version. Get and the iterators use
// that one seek; an iterator that meets a version above its read point seeks
// past the newer versions the same way.
//
// The list links its nodes forward only. An iterator moving backward searches the
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
// The arena never grows. Add therefore reserves, before it touches the
// list, an upper bound of the arena bytes the cell can take
// (CellArenaBound: a node of maximum height with alignment padding, the
// key, the value and its kind byte) and refuses the cell with ErrFull when
// the arena could overflow. Reservations of Adds still running count
// against the arena until they finish, so with many concurrent writers
// ErrFull can come a few hundred bytes early; it never comes late.
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
// Len counts the second Add too: it counts Adds. In
// kvenc such a pair happens only inside one batch, whose seq is above every
// reader's read point until the batch completes, so no reader can see the
// replacement happen.
//
// All methods are safe for concurrent use; an Iterator is used by one
// goroutine at a time.
package memstore
