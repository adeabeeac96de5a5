"""Streamlit-side helpers shared by pages (the only package besides pages/ that imports streamlit)."""
