"""Streamlit-side helpers shared by pages (with pages/, the only code importing streamlit)."""
