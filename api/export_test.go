package api

// Unexported parts exposed to the black-box tests.
var (
	DecodeMessage = decodeMessage
	Clip          = clip // shortens a close reason
)
