package cosync

// selState is what the records of one blocked Select share.
type selState struct {
	fired int // the index of the case that completed, or -1
}
