package dataset

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
)

// KV is one cell of the seek benchmarks: a key, an 8-byte value and a
// sequence number in the 5..7-byte Hadoop vlong range (2^24 .. 2^48-1).
type KV struct {
	Key, Value []byte
	Seq        uint64
}

// KeySets names the seek key sets in the order KeySet accepts them.
var KeySets = []string{"user", "lineitem", "random"}

// KeySet returns sorted, distinct cells of the named set whose keys, values
// and 8 bytes per seq add up to at least rawBytes:
//   - user: "user/%08d/metric/%04d" rows, a few metrics per user;
//   - lineitem: 8-byte big-endian orderkey + 4-byte big-endian linenumber,
//     taken in order from rows (which must be long enough);
//   - random: uniformly random 16-byte keys.
func KeySet(name string, rawBytes int, rows []Lineitem) ([]KV, error) {
	r := rand.New(rand.NewPCG(5, 105))
	var keys [][]byte
	total := 0
	add := func(k []byte) { keys = append(keys, k); total += len(k) + 16 }
	switch name {
	case "user":
		user := 10_000 + r.IntN(1000)
		for total < rawBytes {
			user += 1 + r.IntN(3)
			metric := r.IntN(50)
			for m := 1 + r.IntN(8); m > 0 && total < rawBytes; m-- {
				add(fmt.Appendf(nil, "user/%08d/metric/%04d", user, metric))
				metric += 1 + r.IntN(20)
			}
		}
	case "lineitem":
		for i := 0; total < rawBytes; i++ {
			if i >= len(rows) {
				return nil, fmt.Errorf("dataset: key set lineitem needs more than %d rows", len(rows))
			}
			k := binary.BigEndian.AppendUint64(nil, uint64(rows[i].OrderKey))
			add(binary.BigEndian.AppendUint32(k, uint32(rows[i].LineNumber)))
		}
	case "random":
		for total < rawBytes {
			k := make([]byte, 16)
			binary.LittleEndian.PutUint64(k, r.Uint64())
			binary.LittleEndian.PutUint64(k[8:], r.Uint64())
			add(k)
		}
		slices.SortFunc(keys, func(a, b []byte) int { return slices.Compare(a, b) })
		keys = slices.CompactFunc(keys, func(a, b []byte) bool { return slices.Equal(a, b) })
	default:
		return nil, fmt.Errorf("dataset: unknown key set %q (want one of %v)", name, KeySets)
	}
	out := make([]KV, len(keys))
	for i, k := range keys {
		out[i] = KV{
			Key:   k,
			Value: binary.BigEndian.AppendUint64(nil, uint64(r.Int64N(1_000_000))),
			Seq:   1<<24 + r.Uint64N(1<<48-1<<24),
		}
	}
	return out, nil
}
