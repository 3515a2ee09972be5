// MathJax 2.7 (from the jupyter-server-mathjax package, copied into the site by twentyq.docs) ships only the STIX-Web fonts
window.MathJax = {messageStyle: "none", "HTML-CSS": {availableFonts: [], preferredFont: null, webFont: "STIX-Web", imageFont: null}};
