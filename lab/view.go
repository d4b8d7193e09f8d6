package lab

// View describes a lab's page beyond its controls: the charts its series go to and the tables
// its summary fills. The page's scripts draw any lab from this description alone.
type View struct {
	Charts []Chart  `json:"charts"`
	Tables []Table  `json:"tables"`
	Notes  []string `json:"notes"` // paragraphs shown under the charts
}

// Chart is one chart (or, with Split, one small chart per series).
type Chart struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	XLabel string `json:"x_label"`
	YLabel string `json:"y_label"`
	Bars   bool   `json:"bars,omitempty"`  // draw as a histogram
	Split  bool   `json:"split,omitempty"` // one small chart per series
	Mark   string `json:"mark,omitempty"`  // parameter whose value is marked on the x axis
	LogY   bool   `json:"log_y,omitempty"` // logarithmic y axis
	Help   string `json:"help,omitempty"`  // a sentence under the title
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
