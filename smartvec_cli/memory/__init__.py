"""The SmartVector memory model: time, trust, relations, and how they rank a passage."""
