package memstore

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dgraph-io/badger/v4/skl"
	"github.com/dgraph-io/badger/v4/y"
	"github.com/kvenc/kvenc/blockenc"
	"github.com/stretchr/testify/require"
)

const benchArena = 64 << 20

// benchKeys returns n random 16-byte keys from a fixed seed.
func benchKeys(n int, seed uint64) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 42))
	keys := make([][]byte, n)
	for i := range keys {
		k := make([]byte, 16)
		for j := 0; j < 16; j += 8 {
			v := rng.Uint64()
			for b := 0; b < 8; b++ {
				k[j+b] = byte(v >> (8 * b))
			}
		}
		keys[i] = k
	}
	return keys
}

var (
	sinkCell blockenc.Cell
	sinkInt  int
)

// BenchmarkAdd adds cells with 16-byte keys to a 64 MiB memstore, starting a
// new one when it is full (the new arena's page faults are part of the cost,
// as in the store). keys=random draws from 2^20 random keys; keys=sequential
// adds ascending keys (time series). impl=inserter adds through an Inserter
// (a store's batches); impl=skl is the peer: bare skl.Put (Badger's arena
// skiplist) of the same keys. writers=2 splits b.N among two goroutines.
func BenchmarkAdd(b *testing.B) {
	random := benchKeys(1<<20, 1)
	for _, writers := range []int{1, 2} {
		for _, valLen := range []int{8, 100} {
			for _, order := range []string{"random", "sequential"} {
				for _, impl := range []string{"memstore", "inserter", "skl"} {
					name := fmt.Sprintf("writers=%d/value=%d/keys=%s/impl=%s", writers, valLen, order, impl)
					b.Run(name, func(b *testing.B) {
						var keys [][]byte
						if order == "random" {
							keys = random
						}
						benchAdd(b, keys, writers, make([]byte, valLen), impl)
					})
				}
			}
		}
	}
}

// benchAdd runs the Adds; keys == nil means sequential keys. impl
// "inserter" adds through one Inserter per writer and memstore (Reserve,
// AddReserved, Release per cell, as a store adds a batch), "skl" bare
// skl.Put.
func benchAdd(b *testing.B, keys [][]byte, writers int, value []byte, impl string) {
	bare := impl == "skl"
	var cur atomic.Pointer[Memstore]
	var curSkl atomic.Pointer[skl.Skiplist]
	if bare {
		curSkl.Store(skl.NewSkiplist(benchArena))
	} else {
		cur.Store(New(benchArena))
	}
	var mu sync.Mutex // serialises replacing a full memstore
	b.ReportAllocs()
	b.SetBytes(int64(16 + len(value))) // key and value bytes per cell
	b.ResetTimer()
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var kbuf [24]byte
			seqKey := make([]byte, 16)
			var ins Inserter
			for i := w; i < b.N; i += writers {
				var key []byte
				if keys != nil {
					key = keys[i&(len(keys)-1)]
				} else {
					binary.BigEndian.PutUint64(seqKey[8:], uint64(i))
					key = seqKey
				}
				seq := uint64(i)
				if bare {
					s := curSkl.Load()
					if s.MemSize() > benchArena-4096 {
						mu.Lock()
						if curSkl.Load() == s {
							curSkl.Store(skl.NewSkiplist(benchArena))
						}
						mu.Unlock()
						s = curSkl.Load()
					}
					s.Put(binary.BigEndian.AppendUint64(append(kbuf[:0], key...), math.MaxUint64-seq), y.ValueStruct{Meta: 0x81, Value: value})
					continue
				}
				c := blockenc.Cell{Key: key, Value: value, Seq: seq, Kind: blockenc.KindPut}
				for {
					m := cur.Load()
					if impl == "inserter" {
						if ins.m != m {
							ins = m.Inserter()
						}
						if need := CellArenaBound(c); m.Reserve(need) {
							err := ins.AddReserved(c)
							m.Release(need)
							if err != nil {
								b.Error(err)
								return
							}
							break
						}
					} else if err := m.Add(c); err == nil {
						break
					}
					mu.Lock()
					if cur.Load() == m {
						cur.Store(New(benchArena))
					}
					mu.Unlock()
				}
			}
		}(w)
	}
	wg.Wait()
}

// filled returns a memstore holding n cells with 16-byte keys and 8-byte
// values, one version each, and the keys.
func filled(b *testing.B, n int) (*Memstore, [][]byte) {
	keys := benchKeys(n, 2)
	m := New(int64(n) * 200)
	for i, k := range keys {
		require.NoError(b, m.Add(blockenc.Cell{Key: k, Value: make([]byte, 8), Seq: uint64(i + 1), Kind: blockenc.KindPut}))
	}
	return m, keys
}

// BenchmarkGet looks up random existing keys at the newest read point.
func BenchmarkGet(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("cells=%d", n), func(b *testing.B) {
			m, keys := filled(b, n)
			order := rand.New(rand.NewPCG(3, 3)).Perm(n)
			b.ReportAllocs()
			i, misses := 0, 0
			for b.Loop() {
				c, ok := m.Get(keys[order[i]], math.MaxUint64)
				if !ok {
					misses++ // checked after the loop: require in the loop would time its bookkeeping
				}
				sinkCell = c
				if i++; i == n {
					i = 0
				}
			}
			require.Zero(b, misses, "Gets of existing keys that missed")
		})
	}
}

// BenchmarkIterNext measures one Next (plus Cell) over a memstore of 2^20
// cells, at a read point and with allVersions.
func BenchmarkIterNext(b *testing.B) {
	m, _ := filled(b, 1<<20)
	for _, all := range []bool{false, true} {
		b.Run(fmt.Sprintf("allVersions=%v", all), func(b *testing.B) {
			it := m.NewIterator(math.MaxUint64, all)
			it.First()
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				if !it.Valid() {
					it.First()
				}
				n += len(it.Cell().Value)
				it.Next()
			}
			sinkInt = n
		})
	}
}

// BenchmarkIterPrev measures one Prev (plus Cell) over the memstore of
// BenchmarkIterNext: the skiplist links forward only, so a Prev is a search
// from the top (one per key of one visible version).
func BenchmarkIterPrev(b *testing.B) {
	m, _ := filled(b, 1<<20)
	for _, all := range []bool{false, true} {
		b.Run(fmt.Sprintf("allVersions=%v", all), func(b *testing.B) {
			it := m.NewIterator(math.MaxUint64, all)
			it.Last()
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				if !it.Valid() {
					it.Last()
				}
				n += len(it.Cell().Value)
				it.Prev()
			}
			sinkInt = n
		})
	}
}
