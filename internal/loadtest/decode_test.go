package loadtest

import "testing"

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want message
	}{
		{`{"type":"frame","id":7,"series":[{"x":[1,2,3]}]}`, message{typ: "frame", id: 7}},
		{`{"type":"done","id":12}`, message{typ: "done", id: 12}},
		{`{"type":"start","id":-1,"url":"/x"}`, message{typ: "start", id: -1}},
		{`{"type":"room","id":0,"room":{"code":"ABC","version":3,"presenter":false}}`, message{typ: "room", id: 3}},
		{`{"type":"room","id":0,"room":{"code":"ABC","version":4,"presenter":true}}`, message{typ: "room", id: 4, presenter: true}},
		{`{"id":4, "type":"start"}`, message{typ: "start", id: 4}},
		{`{"type":"busy","id":2,"retry_ms":400}`, message{typ: "busy", id: 2}},
		{`{"type":"error","id":9,"error":"clients must be between 1 and 1000, got 5000","param":"clients"}`,
			message{typ: "error", id: 9, err: "clients must be between 1 and 1000, got 5000", param: "clients"}},
		{`{"type":"frame","id":12x}`, message{}}, // not a number: decoded whole, and malformed
	} {
		got, err := decode([]byte(tc.in))
		if tc.want == (message{}) {
			if err == nil {
				t.Errorf("decode(%s) = %+v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("decode(%s) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`not json`, `{"type":"room","id":0}`, `{"id":3}`} {
		if _, err := decode([]byte(bad)); err == nil {
			t.Errorf("decode(%s): no error", bad)
		}
	}
}
