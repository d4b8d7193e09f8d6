package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/param"
	"github.com/resilience-playground/playground/room"
)

// errNotFound is a path that names no lab or route.
var errNotFound = errors.New("not found")

// hostError is a request for a host name the server does not answer to (see
// Config.AllowedHosts).
type hostError struct{ host string }

func (e hostError) Error() string {
	return fmt.Sprintf("this server does not answer to the host name %q; its operator can allow it (playground -allow-host NAME)", e.host)
}

// methodError is a method the route does not serve.
type methodError struct {
	method string
	allow  []string
}

func (e methodError) Error() string {
	return fmt.Sprintf("method %s is not allowed here; use %s", clip(e.method), strings.Join(e.allow, " or "))
}

// errorBody is the JSON body of every error response.
type errorBody struct {
	Error      string   `json:"error"`
	Param      string   `json:"param,omitempty"`
	Params     []string `json:"params,omitempty"`      // a rule across parameters: all it spans, Param first
	Fit        string   `json:"fit,omitempty"`         // a refusal's value of Param that is admitted
	RetryAfter int      `json:"retry_after,omitempty"` // seconds
	// URL is the scenario an ended room showed last (a 404 of a room that has ended).
	URL string `json:"url,omitempty"`
}

// busyRetry is how long a client is told to wait when every slot is taken.
const busyRetrySeconds = 1

// storeRetrySeconds is how long a client is told to wait when the rooms' store does not
// answer.
const storeRetrySeconds = 2

// roomsFullRetrySeconds is how long a client is told to wait when it, or the server, has as
// many rooms as it may: rooms end only two hours after their last use.
const roomsFullRetrySeconds = 300

// statusOf maps an error to its HTTP status and body. It is the one place errors become
// statuses; messages of unexpected errors never reach clients.
func statusOf(err error) (int, errorBody) {
	var (
		pe    *param.Error
		re    *rateError
		ended *endedError
	)
	switch {
	case errors.As(err, &pe):
		return http.StatusBadRequest, errorBody{Error: pe.Msg, Param: pe.Param, Params: pe.Params, Fit: pe.Fit}
	case errors.Is(err, hub.ErrBusy):
		return http.StatusServiceUnavailable, errorBody{Error: "every simulation slot is taken; retry shortly", RetryAfter: busyRetrySeconds}
	case errors.Is(err, hub.ErrDraining):
		return http.StatusServiceUnavailable, errorBody{Error: "the server is restarting; retry shortly", RetryAfter: busyRetrySeconds}
	case errors.Is(err, errStreamsFull):
		return http.StatusServiceUnavailable, errorBody{Error: err.Error(), RetryAfter: streamsRetrySeconds}
	case errors.As(err, &re):
		return http.StatusTooManyRequests, errorBody{Error: re.msg, RetryAfter: re.retrySeconds()}
	case errors.Is(err, room.ErrNetworkFull):
		return http.StatusTooManyRequests, errorBody{Error: "this network has as many open rooms as the server allows; a room nobody joins ends ten minutes after it was made, any other two hours after its last use", RetryAfter: roomsFullRetrySeconds}
	case errors.Is(err, room.ErrOwnerFull):
		return http.StatusTooManyRequests, errorBody{Error: "this address has as many open rooms as the server allows; a room ends two hours after its last use", RetryAfter: roomsFullRetrySeconds}
	case errors.Is(err, room.ErrUnavailable):
		return http.StatusServiceUnavailable, errorBody{Error: "rooms are not available right now (their store does not answer); try again shortly", RetryAfter: storeRetrySeconds}
	case errors.Is(err, room.ErrFull):
		return http.StatusServiceUnavailable, errorBody{Error: "the server keeps as many rooms as it can; try again later", RetryAfter: roomsFullRetrySeconds}
	case errors.As(err, new(hostError)):
		return http.StatusMisdirectedRequest, errorBody{Error: err.Error()}
	case errors.Is(err, room.ErrClosed):
		return http.StatusConflict, errorBody{Error: "this step takes no answers now: it is not the step on show, or its answer has been revealed", Param: "step"}
	case errors.Is(err, room.ErrAnswersFull):
		return http.StatusConflict, errorBody{Error: "the room keeps as many answers as it may", Param: "answer"}
	case errors.As(err, new(forbiddenError)):
		return http.StatusForbidden, errorBody{Error: err.Error()}
	case errors.As(err, new(originError)):
		return http.StatusForbidden, errorBody{Error: err.Error()}
	case errors.As(err, new(methodError)):
		return http.StatusMethodNotAllowed, errorBody{Error: err.Error()}
	case errors.As(err, &ended):
		return http.StatusNotFound, errorBody{Error: strings.TrimPrefix(err.Error(), errNotFound.Error()+": "), URL: ended.room.URL}
	case errors.Is(err, errNotFound):
		return http.StatusNotFound, errorBody{Error: strings.TrimPrefix(err.Error(), errNotFound.Error()+": ")}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return 499, errorBody{Error: "request cancelled"}
	}
	return http.StatusInternalServerError, errorBody{Error: "internal error"}
}

// writeError writes err as a JSON error response and logs what clients are not told.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code, body := statusOf(err)
	if code == http.StatusInternalServerError {
		s.log.LogAttrs(r.Context(), slog.LevelError, "internal error", slog.String("path", r.URL.Path), slog.Any("err", err))
	}
	if body.RetryAfter > 0 {
		w.Header().Set("Retry-After", itoa(body.RetryAfter))
	}
	writeJSON(w, code, body)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = EncodeJSON(w, v)
}

// EncodeJSON writes v as the API does: compact JSON and a newline, with HTML characters left
// unescaped. The CLI uses it too, so both print the same bytes.
func EncodeJSON(w interface{ Write([]byte) (int, error) }, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
