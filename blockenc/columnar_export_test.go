package blockenc

// ColumnarForms returns the key, seq and value modes of a Columnar block.
func ColumnarForms(block []byte) (keys, seqs, values byte, err error) {
	var s Seeker
	if err := s.Init(block); err != nil {
		return 0, 0, 0, err
	}
	keys, seqs, values = s.col.Forms()
	return keys, seqs, values, nil
}

// ColumnarSubsLoaded returns how many LZ4Dict sub-blocks of the value area
// s has decompressed since Init, and how many the area has.
func ColumnarSubsLoaded(s *Seeker) (loaded, total int) { return s.col.SubsLoaded() }

// RowSubsLoaded returns how many LZ4Dict sub-blocks of a row block s has
// decompressed since Init, and how many the block has.
func RowSubsLoaded(s *Seeker) (loaded, total int) { return s.row.SubsLoaded() }
