package kv

import "encoding/binary"

// Separator is the byte between Options.Prefix and a Store's key tag: a
// Store owns exactly the Badger keys that start with Prefix+Separator (its
// namespace). Part of the format (key layout 2), never change it.
const Separator byte = 0x00

// layoutVersion is the key layout version kept in the registry entry.
// Layout 1 (keys P+tag, no separator, no registry) is refused at Open.
const layoutVersion = 2

// Badger key tags after the namespace. Part of the format, never reuse.
const (
	tagWAL     byte = 'w' // N+'w'+seq u64 BE+chunk u16 BE -> WAL record chunk
	tagSegment byte = 's' // N+'s'+segment id u64 BE+last key of block -> block
	tagMeta    byte = 'm' // N+'m'+segment id u64 BE -> segment meta
)

// Lengths of the tagged keys after the namespace.
const (
	walKeyLen  = 1 + 8 + 2
	metaKeyLen = 1 + 8
	segKeyLen  = 1 + 8 // plus the block's last key
)

// keys builds the Badger keys of one Store: ns is Prefix+Separator.
type keys struct{ ns []byte }

func newKeys(prefix []byte) keys {
	return keys{ns: append(append(make([]byte, 0, len(prefix)+1), prefix...), Separator)}
}

func (k keys) tag(t byte) []byte {
	b := make([]byte, 0, len(k.ns)+1)
	return append(append(b, k.ns...), t)
}

func (k keys) wal(seq uint64, chunk uint16) []byte {
	b := make([]byte, 0, len(k.ns)+walKeyLen)
	b = append(append(b, k.ns...), tagWAL)
	b = binary.BigEndian.AppendUint64(b, seq)
	return binary.BigEndian.AppendUint16(b, chunk)
}

// segment returns N+'s'+id; append a block's last key for the block key.
func (k keys) segment(id uint64) []byte {
	b := make([]byte, 0, len(k.ns)+segKeyLen)
	b = append(append(b, k.ns...), tagSegment)
	return binary.BigEndian.AppendUint64(b, id)
}

func (k keys) block(id uint64, lastKey []byte) []byte {
	return append(k.segment(id), lastKey...)
}

func (k keys) meta(id uint64) []byte {
	b := make([]byte, 0, len(k.ns)+metaKeyLen)
	b = append(append(b, k.ns...), tagMeta)
	return binary.BigEndian.AppendUint64(b, id)
}

// isWAL reports whether key (under the namespace) is a WAL key.
func (k keys) isWAL(key []byte) bool {
	return len(key) == len(k.ns)+walKeyLen && key[len(k.ns)] == tagWAL
}

// own reports whether key (under the namespace) has the form of one of the
// Store's keys; other keys in the namespace are foreign: reported, never
// read or deleted.
func (k keys) own(key []byte) bool {
	if len(key) <= len(k.ns) {
		return false
	}
	switch rest := len(key) - len(k.ns); key[len(k.ns)] {
	case tagWAL:
		return rest == walKeyLen
	case tagMeta:
		return rest == metaKeyLen
	case tagSegment:
		return rest >= segKeyLen
	}
	return false
}
