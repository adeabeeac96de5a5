"""The open vision measuring harness. Never imports streamlit."""
