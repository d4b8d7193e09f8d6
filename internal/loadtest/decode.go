package loadtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// message is what the tool reads of a server message (see the stream protocol in package
// api): its type; its id (on a room's stream, a run message's id and a room message's
// version are the room's version); an error's text and parameter; and whether a room
// message says the connection presents.
type message struct {
	typ       string
	id        int64
	err       string
	param     string
	presenter bool
	// An answers message's (a presenter's live tally): its step and how many answered.
	step     string
	answered int
}

var (
	typePrefix = []byte(`{"type":"`)
	idPrefix   = []byte(`","id":`)
)

// decode reads a server message. The server writes "type" then "id" first, so a run message
// ("start", "frame", "done") is read from its first bytes, however long its series; anything
// else is decoded whole.
func decode(b []byte) (message, error) {
	if m, ok := peekRun(b); ok {
		return m, nil
	}
	var r struct {
		Type  string `json:"type"`
		ID    int64  `json:"id"`
		Error string `json:"error"`
		Param string `json:"param"`
		Room  *struct {
			Version   int64 `json:"version"`
			Presenter bool  `json:"presenter"`
		} `json:"room"`
		Answers *struct {
			Step     string `json:"step"`
			Answered int    `json:"answered"`
		} `json:"answers"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return message{}, fmt.Errorf("malformed message %.200q: %v", b, err)
	}
	if r.Type == "" {
		return message{}, fmt.Errorf("message without a type: %.200s", b)
	}
	m := message{typ: r.Type, id: r.ID, err: r.Error, param: r.Param}
	if r.Answers != nil {
		m.step, m.answered = r.Answers.Step, r.Answers.Answered
	}
	if r.Type == "room" {
		if r.Room == nil {
			return message{}, fmt.Errorf("room message without a room: %.200s", b)
		}
		m.id, m.presenter = r.Room.Version, r.Room.Presenter
	}
	return m, nil
}

// peekRun reads a run message's type and id from its first bytes.
func peekRun(b []byte) (message, bool) {
	rest, ok := bytes.CutPrefix(b, typePrefix)
	if !ok {
		return message{}, false
	}
	i := bytes.IndexByte(rest, '"')
	if i <= 0 {
		return message{}, false
	}
	typ := string(rest[:i])
	if typ != "start" && typ != "frame" && typ != "done" {
		return message{}, false
	}
	num, ok := bytes.CutPrefix(rest[i:], idPrefix)
	if !ok {
		return message{}, false
	}
	j := 0
	for j < len(num) && (num[j] >= '0' && num[j] <= '9' || j == 0 && num[j] == '-') {
		j++
	}
	if j == len(num) || num[j] != ',' && num[j] != '}' {
		return message{}, false
	}
	id, err := strconv.ParseInt(string(num[:j]), 10, 64)
	return message{typ: typ, id: id}, err == nil
}
