"""The sort pass: the top positions of each row, their tie groups, what each item is
worth, and the row's ideal ordering."""
