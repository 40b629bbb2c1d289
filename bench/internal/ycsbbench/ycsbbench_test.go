package ycsbbench

import (
	"bytes"
	"testing"
)

func TestRecordRoundTrip(t *testing.T) {
	in := map[string][]byte{"field1": []byte("b"), "field0": []byte("a"), "f": nil}
	enc := encodeRecord(nil, in)
	out := map[string][]byte{}
	if err := decodeRecord(out, enc, nil); err != nil || len(out) != 3 || !bytes.Equal(out["field1"], []byte("b")) {
		t.Fatalf("%v %v", out, err)
	}
	some := map[string][]byte{}
	if err := decodeRecord(some, enc, []string{"field0"}); err != nil || len(some) != 1 {
		t.Errorf("fields: %v %v", some, err)
	}
	if err := decodeRecord(map[string][]byte{}, enc[:len(enc)-1], nil); err == nil {
		t.Error("truncated record: no error")
	}
}

func TestRunAllWorkloads(t *testing.T) {
	for _, e := range Engines() {
		res, err := Run(e, t.TempDir(), Options{Records: 300, Ops: 200, Threads: 1}, func(string) {})
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		if len(res) != 1+len(Workloads) {
			t.Fatalf("%s: %d results", e.Name, len(res))
		}
		for _, r := range res {
			want := 200
			switch r.Workload {
			case "load":
				want = 300
			case "E":
				want = 20
			}
			if r.Ops != want || !(r.OpsPerSec > 0) || r.P99 < r.P50 || r.P50 <= 0 || r.NotFound > r.Ops/10 {
				t.Errorf("%s: %+v", e.Name, r)
			}
		}
	}
}
