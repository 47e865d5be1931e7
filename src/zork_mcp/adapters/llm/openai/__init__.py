"""OpenAI's two wire APIs over the shared base: Chat Completions (`chat`) and Responses
(`responses`).
"""
