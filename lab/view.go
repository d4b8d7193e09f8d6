package lab

// View describes a lab's page beyond its controls: the charts its series go to and the tables
// its summary fills. The page's scripts draw any lab from this description alone.
type View struct {
	Charts []Chart  `json:"charts"`
	Tables []Table  `json:"tables"`
	Notes  []string `json:"notes"` // paragraphs shown under the charts

	// Key names the list or enum parameter whose options are the things the lab compares
	// (strategies, algorithms, policies): series whose Label is one of its options take that
	// option's colour, dash and place, the same for every viewer, and map tables list their
	// rows in its order. Other series take the remaining styles in order.
	Key string `json:"key,omitempty"`

	// Headline names the charts shown first, beside the main controls.
	Headline []string `json:"headline,omitempty"`
}

// Chart kinds.
const (
	Lines = "lines" // one line per series (the default)
	Steps = "steps" // step lines: the value holds until the next point
	Bars  = "bars"  // bars at each x: a histogram of times or of values
)

// Chart is one chart (or, with Split, one small chart per series or group). Its Title, like a
// Table's, may name parameters in braces ("Writes over time at N = {clients}"): the page writes
// there the values of the numbers shown, so a heading never claims a value its numbers are
// not of.
type Chart struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	XLabel string `json:"x_label"`
	YLabel string `json:"y_label"`
	Kind   string `json:"kind,omitempty"`   // Lines, Steps or Bars; "" is Lines (or Bars, below)
	Bars   bool   `json:"bars,omitempty"`   // draw as a histogram (the same as Kind Bars)
	Split  bool   `json:"split,omitempty"`  // one small chart per series (or per Series.Group), on shared axes
	Mark   string `json:"mark,omitempty"`   // parameter whose value is marked on the x axis
	LogY   bool   `json:"log_y,omitempty"`  // logarithmic y axis
	LogX   bool   `json:"log_x,omitempty"`  // logarithmic x axis
	IntX   bool   `json:"int_x,omitempty"`  // x takes whole values: ticks only at integers
	IntY   bool   `json:"int_y,omitempty"`  // y takes whole values
	XUnit  string `json:"x_unit,omitempty"` // "ms" makes the page write x as durations (1.5 s, 2 min)
	YUnit  string `json:"y_unit,omitempty"` // "ms" likewise for y, "%" for percentages
	Help   string `json:"help,omitempty"`   // a sentence under the title
}

// Table shows a summary entry: a map of rows by name (Rows "map") or a list of rows ("list").
type Table struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Key     string   `json:"key"`  // summary key
	Rows    string   `json:"rows"` // "map" or "list"
	Columns []Column `json:"columns"`
	Help    string   `json:"help,omitempty"`
	Bottom  bool     `json:"bottom,omitempty"` // shown after the charts rather than before
}

// Column is one column of a Table: Field of each row, printed with Digits decimals and Suffix.
// Field "" is the row's name in a map table.
type Column struct {
	Field  string `json:"field"`
	Label  string `json:"label"`
	Digits int    `json:"digits"`
	Suffix string `json:"suffix,omitempty"`
}
