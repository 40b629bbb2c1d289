package blockenc

// ColumnarForms returns the key, seq and value modes of a Columnar block.
func ColumnarForms(block []byte) (keys, seqs, values byte, err error) {
	var s Seeker
	if err := s.Init(block); err != nil {
		return 0, 0, 0, err
	}
	return s.col.kform, s.col.seqMode, s.col.vmode, nil
}
