// Package fuzz holds kvenc's fuzz targets, one file per package under test
// (testing.F, seed corpora under testdata/fuzz/), and gofuzz-driven tests
// that build structured input (many values, cells, operations).
//
// `make test` runs every target over its seed corpus; `make fuzz` fuzzes each
// one for FUZZTIME (default 30s):
//
//	go test ./fuzz/ -run '^$' -fuzz '^FuzzVLongDecoders$' -fuzztime 1m
package fuzz
