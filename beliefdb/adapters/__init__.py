"""Framework adapters, each behind its own extra and reaching memory through the entry point only
(:class:`beliefdb.BeliefDB` or :class:`beliefdb.AsyncBeliefDB`, never the store or the database):

* :mod:`beliefdb.adapters.langgraph`, extra ``langgraph``: ``BeliefStore``, a LangGraph ``BaseStore``
  whose reads go through the truth filter (its search filters: :mod:`beliefdb.adapters.filters`, which
  imports no framework);
* :mod:`beliefdb.adapters.langchain`, extra ``langchain``: ``BeliefRetriever``, a LangChain retriever
  whose documents carry quote, source, confidence and warnings.

Importing this package (or ``beliefdb``) imports no framework; only each adapter's module does.
"""

from __future__ import annotations
