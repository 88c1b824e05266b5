"""``python -m sk_rankmetrics``: print every metric on the bundled demo data."""

from ._demo import demo_table

if __name__ == "__main__":  # accepts the word "demo" (the command line grows later)
    print("sk_rankmetrics demo: 300 queries x 50 items, graded relevance 0-3")
    print(demo_table())
