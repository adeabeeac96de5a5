"""Pure computation and queries for the app. Never imports streamlit."""
