package textir

// AttrString prints an attribute. (Placeholder until the printer lands.)
func AttrString(a Attribute) string { return "<attr>" }

// OpPrinter prints custom op forms. (Placeholder until the printer lands.)
type OpPrinter struct{}

// OpParser parses custom op forms. (Placeholder until the parser lands.)
type OpParser struct{}
