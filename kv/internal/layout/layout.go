package layout

import (
	"bytes"
	"encoding/binary"
)

// Separator is the byte between Options.Prefix and a Store's key tag: a
// Store owns exactly the Badger keys that start with Prefix+Separator (its
// namespace). Part of the format (key layout 2), never change it.
const Separator byte = 0x00

// Version is the key layout version kept in the registry entry.
// Layout 1 (keys P+tag, no separator, no registry) is refused at Open.
const Version = 2

// Badger key tags after the namespace. Part of the format, never reuse.
const (
	TagWAL     byte = 'w' // N+'w'+seq u64 BE+chunk u16 BE -> WAL record chunk
	TagSegment byte = 's' // N+'s'+segment id u64 BE+last key of block -> block
	TagMeta    byte = 'm' // N+'m'+segment id u64 BE -> segment meta
	TagDict    byte = 'd' // N+'d'+segment id u64 BE+part u32 BE -> dictionary
	TagFilter  byte = 'f' // N+'f'+segment id u64 BE+run u32 BE -> key filter
)

// Lengths of the tagged keys after the namespace.
const (
	walKeyLen  = 1 + 8 + 2
	metaKeyLen = 1 + 8
	segKeyLen  = 1 + 8     // plus the block's last key
	runKeyLen  = 1 + 8 + 4 // dictionaries and key filters
)

// Keys builds the keys of one Store: NS is Prefix+Separator, its
// namespace.
type Keys struct{ NS []byte }

// NewKeys returns the Keys of the Store with prefix.
func NewKeys(prefix []byte) Keys {
	return Keys{NS: append(append(make([]byte, 0, len(prefix)+1), prefix...), Separator)}
}

func (k Keys) Tag(t byte) []byte {
	b := make([]byte, 0, len(k.NS)+1)
	return append(append(b, k.NS...), t)
}

func (k Keys) WAL(seq uint64, chunk uint16) []byte {
	b := make([]byte, 0, len(k.NS)+walKeyLen)
	b = append(append(b, k.NS...), TagWAL)
	b = binary.BigEndian.AppendUint64(b, seq)
	return binary.BigEndian.AppendUint16(b, chunk)
}

// Segment returns N+'s'+id; append a block's last key for the block key.
func (k Keys) Segment(id uint64) []byte { return k.idKey(TagSegment, id, segKeyLen) }

// Block returns N+'s'+id+lastKey, the key of the block of segment id
// whose last key is lastKey, allocated at its length.
func (k Keys) Block(id uint64, lastKey []byte) []byte {
	return append(k.idKey(TagSegment, id, segKeyLen+len(lastKey)), lastKey...)
}

// BlockLastKey returns the last key of the block whose key (one Own
// accepts under TagSegment) is key: the bytes after N+'s'+id.
func (k Keys) BlockLastKey(key []byte) []byte { return key[len(k.NS)+segKeyLen:] }

// idKey returns N+tag+id in a new slice with room for n bytes after the
// namespace.
func (k Keys) idKey(tag byte, id uint64, n int) []byte {
	b := make([]byte, 0, len(k.NS)+n)
	b = append(append(b, k.NS...), tag)
	return binary.BigEndian.AppendUint64(b, id)
}

// DictSegment returns N+'d'+id, the prefix of the dictionary keys of
// segment id.
func (k Keys) DictSegment(id uint64) []byte { return k.runSegment(TagDict, id) }

// Dict returns the key of the dictionary of part part of segment id.
func (k Keys) Dict(id uint64, part uint32) []byte {
	return binary.BigEndian.AppendUint32(k.DictSegment(id), part)
}

// FilterSegment returns N+'f'+id, the prefix of the key filter keys of
// segment id.
func (k Keys) FilterSegment(id uint64) []byte { return k.runSegment(TagFilter, id) }

// Filter returns the key of the key filter of run run of segment id.
func (k Keys) Filter(id uint64, run uint32) []byte {
	return binary.BigEndian.AppendUint32(k.FilterSegment(id), run)
}

func (k Keys) runSegment(tag byte, id uint64) []byte { return k.idKey(tag, id, runKeyLen) }

// ParseRun returns the segment id and the part or run of a dictionary or
// key filter key (one that Own accepts under TagDict or TagFilter).
func (k Keys) ParseRun(key []byte) (id uint64, n uint32) {
	rest := key[len(k.NS)+1:]
	return binary.BigEndian.Uint64(rest), binary.BigEndian.Uint32(rest[8:])
}

func (k Keys) Meta(id uint64) []byte { return k.idKey(TagMeta, id, metaKeyLen) }

// IsWAL reports whether key (under the namespace) is a WAL key.
func (k Keys) IsWAL(key []byte) bool {
	return len(key) == len(k.NS)+walKeyLen && key[len(k.NS)] == TagWAL
}

// Own reports whether key (under the namespace) has the form of one of the
// Store's keys; other keys in the namespace are foreign: reported, never
// read or deleted.
func (k Keys) Own(key []byte) bool {
	if len(key) <= len(k.NS) {
		return false
	}
	switch rest := len(key) - len(k.NS); key[len(k.NS)] {
	case TagWAL:
		return rest == walKeyLen
	case TagMeta:
		return rest == metaKeyLen
	case TagSegment:
		return rest >= segKeyLen
	case TagDict, TagFilter:
		return rest == runKeyLen
	}
	return false
}

// RegistryPrefix starts the registry entry of every Store of a DB:
// RegistryPrefix+Prefix -> layout version u8 (and what an engine keeps
// there after it). It holds no Separator byte, so no Store's namespace
// contains it (a Prefix that starts with it is refused). Part of the
// format, never change it.
var RegistryPrefix = []byte("\xffkvenc/store/")

// RegistryKey returns the registry entry's key of the Store with prefix.
func RegistryKey(prefix []byte) []byte {
	return append(append([]byte(nil), RegistryPrefix...), prefix...)
}

// Overlaps reports whether the namespaces of stores with prefixes p and q
// share a key: one of p+Separator and q+Separator is a prefix of the other.
func Overlaps(p, q []byte) bool {
	return bytes.Equal(p, q) || hasNSPrefix(p, q) || hasNSPrefix(q, p)
}

// hasNSPrefix reports whether p starts with q+Separator.
func hasNSPrefix(p, q []byte) bool {
	return len(p) > len(q) && p[len(q)] == Separator && bytes.HasPrefix(p, q)
}
