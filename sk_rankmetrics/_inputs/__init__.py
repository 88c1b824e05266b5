"""Input layouts: user data turned into one interface (rows, blocks, ranked chunks)."""
