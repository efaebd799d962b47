

ab