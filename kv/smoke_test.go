package kv

import (
	"fmt"
	"testing"
)

func count(s *Store) int {
	n := 0
	it := s.NewIterator(IterOptions{})
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	it.Close()
	return n
}

func TestSmoke(t *testing.T) {
	s, err := Open(Options{MemstoreSize: 1 << 20, Prefix: []byte("p")})
	if err != nil {
		t.Fatal(err)
	}
	missing := 0
	for i := 0; i < 5000; i++ {
		if err := s.Put([]byte(fmt.Sprintf("k%05d", i)), []byte(fmt.Sprintf("v%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 5000; i++ {
		if _, err := s.Get([]byte(fmt.Sprintf("k%05d", i))); err != nil {
			missing++
		}
	}
	t.Logf("missing %d count %d %+v", missing, count(s), s.Stats())
	s.Flush()
	t.Logf("count %d %+v", count(s), s.Stats())
}

func TestSmoke2(t *testing.T) {
	s, err := Open(Options{MemstoreSize: 1 << 20, Prefix: []byte("p")})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5000; i++ {
		s.Put([]byte(fmt.Sprintf("k%05d", i)), []byte(fmt.Sprintf("v%d", i)))
	}
	s.Flush()
	s.Delete([]byte("k00042"))
	s.Flush()
	t.Logf("count %d %+v", count(s), s.Stats())
	s.Compact()
	t.Logf("count %d %+v", count(s), s.Stats())
	missing := 0
	for i := 0; i < 5000; i++ {
		if _, err := s.Get([]byte(fmt.Sprintf("k%05d", i))); err != nil {
			missing++
			if missing < 5 {
				t.Log(i)
			}
		}
	}
	t.Log(missing)
}
